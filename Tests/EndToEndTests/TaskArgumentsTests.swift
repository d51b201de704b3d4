import Foundation
import Testing

/// docs/manual/arguments.md: `opsrun TASK -- ARG...` runs each command of TASK as
/// `sh -c COMMAND TASK ARG...`, through the real binary and both argument parsers.
@Suite struct TaskArgumentsTests {
    static let manifest = """
        default: test
        tasks:
          prepare: echo "prepare got $#" >> log
          test:
            deps: [prepare]
            run:
              - printf '%s|' "$0" "$@" >> log; echo >> log
              - echo "second got $#" >> log
          both: { deps: [test] }
        """

    static let viaArgumentParser = ["--output", "prefixed"]

    func log(_ project: TemporaryProject) throws -> String {
        try String(contentsOfFile: project.path("log"), encoding: .utf8)
    }

    @Test(arguments: [[], viaArgumentParser])
    func argumentsAfterTheTerminatorArePositionalParametersOfTheNamedTaskOnly(extra: [String]) throws {
        let project = try TemporaryProject(Self.manifest)
        let result = try OpsrunBinary.run(extra + ["test", "X=1", "--", "-v", "-k", "a b", "Y=2", "--", ""], in: project.url)
        #expect(result.status == 0, "\(result.stderr)")
        // $0 is the task's name; options, `=` and a second `--` after the first are all arguments.
        #expect(try log(project) == "prepare got 0\ntest|-v|-k|a b|Y=2|--||\nsecond got 6\n")
    }

    @Test func withoutArgumentsTheTaskNameIsStillTheShellsZerothArgument() throws {
        let project = try TemporaryProject(Self.manifest)
        #expect(try project.run().status == 0)
        #expect(try log(project) == "prepare got 0\ntest|\nsecond got 0\n")
    }

    @Test func theDefaultTaskTakesTheArgumentsWhenItIsOne() throws {
        let project = try TemporaryProject(Self.manifest)
        let result = try project.run("--", "x")
        #expect(result.status == 0)
        #expect(try log(project) == "prepare got 0\ntest|x|\nsecond got 1\n")
    }

    @Test func argumentsForSeveralDefaultTasksOrAGroupAreRefused() throws {
        let several = try TemporaryProject("default: [a, b]\ntasks:\n  a: touch ran\n  b: touch ran\n")
        let result = try several.run("--", "x")
        #expect(result.status == 2)
        #expect(result.stderr == "error: the arguments after '--' go to one task, but 'default' names 2: a, b; name the task before '--'\n")
        let group = try TemporaryProject(Self.manifest)
        let grouped = try group.run("both", "--", "x")
        #expect(grouped.status == 2)
        #expect(grouped.stderr.hasPrefix("error: task 'both' runs no commands of its own"))
        #expect(!FileManager.default.fileExists(atPath: group.path("log")))
    }

    @Test func dryRunAndVerboseShowTheArguments() throws {
        let project = try TemporaryProject("tasks:\n  test: pytest \"$@\"\n")
        let plan = try project.run("-n", "test", "--", "-v", "-k foo", "it's")
        #expect(plan.status == 0)
        #expect(plan.stdout == "wave 1:\n  test\n    $ pytest \"$@\"  # args: -v '-k foo' 'it'\\''s'\n")
        let json = try project.run("-n", "--format", "json", "test", "--", "-v")
        #expect(json.stdout.contains("\"arguments\": [\n          \"-v\"\n        ]"))
        let echo = try TemporaryProject("tasks:\n  test: printf '%s\\n' \"$@\"\n")
        let verbose = try echo.run("-v", "test", "--", "a b")
        #expect(verbose.stdout.contains("test | $ printf '%s\\n' \"$@\"  # args: 'a b'\ntest | a b\n"))
    }

    @Test func theArgumentsArePartOfTheTaskForUpToDateChecks() throws {
        let project = try TemporaryProject("""
            tasks:
              gen:
                run: [echo "$@" > out.txt, echo ran >> log]
                outputs: [out.txt]
            """)
        func runs(_ arguments: String...) throws -> Bool {
            try? FileManager.default.removeItem(atPath: project.path("log"))
            let result = try OpsrunBinary.run(["gen"] + arguments, in: project.url)
            #expect(result.status == 0)
            return FileManager.default.fileExists(atPath: project.path("log"))
        }
        #expect(try runs())
        #expect(try !runs())
        #expect(try runs("--", "-v"))
        #expect(try !runs("--", "-v"))
        #expect(try runs("--", "-v", "-x"))
        #expect(try runs("--", "-v x"))
        #expect(try runs())
        #expect(try !runs("--"))
        let explained = try project.run("--explain", "gen", "--", "a")
        #expect(explained.stdout.contains("gen runs: arguments after -- given (not cacheable: it has no sources, depfile or prerequisites to key it on)\n"))
        let again = try project.run("--explain", "gen", "--", "b")
        #expect(again.stdout.contains("gen runs: command or arguments after -- changed (not cacheable: it has no sources, depfile or prerequisites to key it on)\n"))
    }
}
