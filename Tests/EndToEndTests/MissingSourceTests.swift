import Foundation
import Testing

/// Issue 13, item 12: a source named without wildcards that does not exist is an error, as make's
/// "No rule to make target": the task fails without starting.
@Suite struct MissingSourceTests {
    static let manifest = """
        default: all
        tasks:
          gen: { outputs: [gen/config.h], run: mkdir -p gen && touch gen/config.h }
          compile:
            deps: [gen]
            sources: [main.c, inc/cofnig.h, gen/config.h]
            outputs: [main.o]
            run: touch main.o
          link: { deps: [compile], run: touch linked }
          docs: { run: touch docs.done }
          all: { deps: [link, docs] }
        """

    @Test func aMisspeltSourceFailsItsTaskWithThePlaceAndANearName() throws {
        let project = try TemporaryProject(Self.manifest, files: ["main.c": "", "inc/config.h": ""])
        let result = try project.run("-j", "1", "-k")
        #expect(result.status == 1)
        #expect(result.stderr == """
            Tasksfile.yaml:6:23: error: task 'compile': source 'inc/cofnig.h' does not exist, and no task \
            of this run makes it; did you mean 'inc/config.h'?

            """)
        #expect(result.stdout.hasSuffix("""
            2 succeeded, 1 failed, 1 cancelled
            FAILED   compile   could not start: source 'inc/cofnig.h' does not exist
              cancelled  link      prerequisite 'compile' failed
              cancelled  all       prerequisite 'link' was cancelled (compile)

            """))
        #expect(!FileManager.default.fileExists(atPath: project.path("main.o")))
        #expect(!FileManager.default.fileExists(atPath: project.path("linked")))
        #expect(FileManager.default.fileExists(atPath: project.path("docs.done")))
    }

    /// `gen/config.h` does not exist when `compile` is ready, but `late`, also in the run, makes it.
    @Test func aSourceThatATaskOfTheRunDeclaresAsAnOutputIsNoError() throws {
        let project = try TemporaryProject("""
            default: all
            tasks:
              compile: { sources: [gen/config.h], outputs: [main.o], run: touch main.o }
              late: { outputs: ["gen/*.h"], run: mkdir -p gen && touch gen/config.h }
              all: { deps: [compile, late] }
            """)
        let result = try project.run("-j", "1")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(FileManager.default.fileExists(atPath: project.path("main.o")))
    }

    /// Issue 28, item 5: an output directory stands for every file beneath it, so a source
    /// beneath one that a task of the run declares will exist once that task runs.
    @Test func aSourceBeneathAnOutputDirectoryOfATaskOfTheRunIsNoError() throws {
        let project = try TemporaryProject("""
            default: all
            tasks:
              use: { sources: [dist/sub/a.txt], outputs: [use.txt], run: touch use.txt }
              gen: { outputs: [dist], run: mkdir -p dist/sub && touch dist/sub/a.txt }
              all: { deps: [use, gen] }
            """)
        let result = try project.run("-j", "1")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(FileManager.default.fileExists(atPath: project.path("use.txt")))
    }
}
