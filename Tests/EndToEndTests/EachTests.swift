import Foundation
import Testing

/// docs/manual/each.md `each` through the real binary: one operation per file or value, each named
/// `TASK[VALUE]` everywhere, up to date on its own; and output directories made before a task runs.
@Suite struct EachTests {
    static let manifest = """
        default: link
        tasks:
          compile:
            desc: Compile each file
            each: { SRC: "src/**/*.c" }
            run: echo "compile $SRC" >> ran.log && cp "$SRC" "build/$SRC.o"
            sources: ["${SRC}"]
            outputs: ["build/${SRC}.o"]
          test:
            each: { OS: [linux, mac], PY: ["3.11", "3.12"] }
            run: echo "$OPSRUN_TASK $OS $PY"
          none:
            each: { X: "nothing/*.z" }
            run: echo never
          link:
            deps: [compile]
            run: echo link >> ran.log && cat build/src/*.o build/src/lib/*.o > build/app
            outputs: [build/app]
        """

    let project: TemporaryProject

    init() throws {
        project = try TemporaryProject(
            Self.manifest, files: ["src/a.c": "int a;\n", "src/lib/b.c": "int b;\n", "src/lib/c.c": "int c;\n"])
    }

    /// What ran (in order) since the last call.
    func ran() -> [String] {
        let path = project.path("ran.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    @Test func eachFileIsOneOperationAndEachIsUpToDateOnItsOwn() throws {
        let first = try project.run("-j", "1")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        // build/src/ and build/src/lib/ were made by opsrun: no command makes them.
        #expect(ran() == ["compile src/a.c", "compile src/lib/b.c", "compile src/lib/c.c", "link"])
        #expect(first.stdout.contains("✓ compile[src/lib/b.c] "))
        #expect(try String(contentsOfFile: project.path("build/app"), encoding: .utf8) == "int a;\nint b;\nint c;\n")
        #expect(first.stdout.hasSuffix("4 succeeded\n"))

        let again = try project.run()
        #expect(again.status == 0)
        #expect(ran() == [])
        #expect(again.stdout == "0 succeeded, 4 up to date\n")

        try "int b = 2;\n".write(toFile: project.path("src/lib/b.c"), atomically: false, encoding: .utf8)
        let edited = try project.run("--explain")
        #expect(ran() == ["compile src/lib/b.c", "link"])
        #expect(edited.stdout.contains("compile[src/lib/b.c] runs: source src/lib/b.c changed"))
    }

    /// The plan shows each instance's command with its own values substituted (issue 15).
    @Test func instancesAreNamedInThePlanTheGraphAndTheList() throws {
        let plan = try project.run("-n", "-j", "8", "link", "test")
        #expect(plan.status == 0)
        #expect(plan.stdout == """
            wave 1:
              compile[src/a.c]
                $ echo "compile src/a.c" >> ran.log && cp "src/a.c" "build/src/a.c.o"
              compile[src/lib/b.c]
                $ echo "compile src/lib/b.c" >> ran.log && cp "src/lib/b.c" "build/src/lib/b.c.o"
              compile[src/lib/c.c]
                $ echo "compile src/lib/c.c" >> ran.log && cp "src/lib/c.c" "build/src/lib/c.c.o"
              test[OS=linux,PY=3.11]
                $ echo "test[OS=linux,PY=3.11] linux 3.11"
              test[OS=linux,PY=3.12]
                $ echo "test[OS=linux,PY=3.12] linux 3.12"
              test[OS=mac,PY=3.11]
                $ echo "test[OS=mac,PY=3.11] mac 3.11"
              test[OS=mac,PY=3.12]
                $ echo "test[OS=mac,PY=3.12] mac 3.12"
            wave 2:
              compile (3 instances)
              test (4 instances)
              link
                $ echo link >> ran.log && cat build/src/*.o build/src/lib/*.o > build/app

            """)
        let graph = try project.run("--graph", "link")
        #expect(graph.stdout == """
            link
            └── compile
                ├── compile[src/a.c]
                ├── compile[src/lib/b.c]
                └── compile[src/lib/c.c]

            """)
        let list = try project.run("--list")
        #expect(list.stdout == """
            compile (3 instances)  Compile each file
            test (4 instances)
            none (0 instances)
            link (default)

            """)
        let json = try project.run("--list", "--format", "json")
        #expect(json.stdout.contains("\"name\": \"compile\",\n      \"desc\": \"Compile each file\",\n      \"deps\": [],\n      \"instances\": 3"))
        #expect(json.stdout.contains("\"name\": \"link\",\n      \"desc\": null,\n      \"deps\": [\n        \"compile\"\n      ],\n      \"instances\": null"))
        let planJSON = try project.run("-n", "--format", "json", "test")
        #expect(planJSON.stdout.contains("\"name\": \"test[OS=mac,PY=3.11]\""))
    }

    @Test func anInstanceCanBeNamedOnTheCommandLine() throws {
        let one = try project.run("test[OS=mac,PY=3.12]", "compile[src/a.c]")
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.contains("test[OS=mac,PY=3.12] | test[OS=mac,PY=3.12] mac 3.12\n"))
        #expect(ran() == ["compile src/a.c"])
        #expect(one.stdout.hasSuffix("2 succeeded\n"))

        let unknown = try project.run("compile[src/x.c]")
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "error: unknown task 'compile[src/x.c]': no instance of 'compile' has that name; did you mean 'compile[src/a.c]'?\n")
    }

    @Test func aGlobThatMatchesNothingSucceedsAndVerboseSaysSo() throws {
        let quiet = try project.run("none")
        #expect(quiet.status == 0)
        #expect(quiet.stdout == "0 succeeded\n")
        let verbose = try project.run("-v", "none")
        #expect(verbose.status == 0)
        #expect(verbose.stdout == "none: no instances: 'nothing/*.z' matches no file\n0 succeeded\n")
    }

    @Test func reportsNameEveryInstance() throws {
        let run = try project.run("--report", "-", "test")
        #expect(run.status == 0)
        for name in ["test", "test[OS=linux,PY=3.11]", "test[OS=linux,PY=3.12]", "test[OS=mac,PY=3.11]", "test[OS=mac,PY=3.12]"] {
            #expect(run.stdout.contains("\"name\": \"\(name)\""), "\(name)")
        }
        let junit = try project.run("--junit", "-", "test")
        #expect(junit.stdout.contains("name=\"test[OS=mac,PY=3.12]\""))
    }

    @Test func manifestErrorsInEachHaveTheirPlace() throws {
        let bad = try TemporaryProject("""
            tasks:
              t:
                each: { PY: [] }
                run: echo
            """)
        let run = try bad.run()
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("Tasksfile.yaml:3:17: error: 'PY' in 'each' of task 't' is an empty list; give at least one value\n"))
    }
}

/// Output directories (docs/manual/each.md): before any task runs, opsrun makes the parents of its declared
/// outputs, as ninja does; one it cannot make fails the task, saying why.
@Suite struct OutputDirectoryEndToEndTests {
    @Test func parentsOfDeclaredOutputsAreMadeForEveryTask() throws {
        let project = try TemporaryProject("""
            tasks:
              gen:
                run: echo made > out/deep/gen.txt
                outputs: [out/deep/gen.txt, "logs/*.log"]
            """)
        let run = try project.run("gen")
        #expect(run.status == 0, "\(run.stdout)")
        #expect(try String(contentsOfFile: project.path("out/deep/gen.txt"), encoding: .utf8) == "made\n")
        // A glob names no directory to make.
        #expect(!FileManager.default.fileExists(atPath: project.path("logs")))
    }

    @Test func aDirectoryThatCannotBeMadeFailsTheTask() throws {
        let project = try TemporaryProject("""
            tasks:
              gen:
                run: echo never > blocked/gen.txt
                outputs: [blocked/gen.txt]
              after:
                deps: [gen]
                run: echo after
            """, files: ["blocked": "a file, not a directory\n"])
        let run = try project.run("after")
        #expect(run.status == 1)
        #expect(run.stdout.contains("✗ gen could not start: cannot create output directory 'blocked': a file is in the way\n"))
        #expect(run.stdout.contains("cancelled  after     prerequisite 'gen' failed\n"))
    }

    @Test func instancesDeclaringOneOutputAreAnErrorBeforeAnythingRuns() throws {
        let project = try TemporaryProject("""
            tasks:
              compile:
                each: { SRC: "src/*.c" }
                run: echo "$SRC" >> ran.log && touch build/obj.o
                sources: ["${SRC}"]
                outputs: [build/obj.o]
              pack:
                run: touch build/./obj.o
                outputs: ["./build//obj.o"]
              other: echo other
            """, files: ["src/a.c": "int a;\n", "src/b.c": "int b;\n"])
        let run = try project.run("compile", "pack")
        #expect(run.status == 2)
        #expect(run.stderr.contains(
            "Tasksfile.yaml:6:15: error: output 'build/obj.o' of task 'compile[src/b.c]' is also an output of task 'compile[src/a.c]'; "
                + "a file can be the output of one task only"), "\(run.stderr)")
        #expect(run.stderr.contains(
            "Tasksfile.yaml:9:15: error: output './build//obj.o' of task 'pack' is also an output of task 'compile[src/a.c]'"),
            "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: project.path("ran.log")))
        // A run that does not hold both is not concerned.
        #expect(try project.run("other").status == 0)
    }

    /// The same file named from two directories, or by its whole path, is one output.
    @Test func oneFileNamedFromAnotherDirectoryIsASharedOutput() throws {
        let project = try TemporaryProject("""
            tasks:
              root:
                run: touch sub/x
                outputs: [sub/x]
              inside:
                dir: sub
                run: touch x
                outputs: [x]
              elsewhere:
                dir: other
                run: touch ../sub/y
                outputs: [../sub/y]
              apart:
                dir: sub
                run: touch y2
                outputs: [y2]
            """, files: ["sub/.keep": "", "other/.keep": ""])
        let run = try project.run("root", "inside", "elsewhere", "apart")
        #expect(run.status == 2)
        #expect(run.stderr.contains(
            "Tasksfile.yaml:8:15: error: output 'x' of task 'inside' is also an output of task 'root'"), "\(run.stderr)")
        #expect(!run.stderr.contains("'apart'"), "\(run.stderr)")
    }

    @Test func aMisspeltVariableBehindASharedOutputIsNamedBesideTheError() throws {
        // Before: only "output 'obj/.o' ... is also an output of ...", which named no cause.
        let project = try TemporaryProject(#"""
            tasks:
              compile:
                each: { SRC: [a.c, b.c] }
                run: echo "$SRC"
                outputs: ["obj/${SCR%.c}.o"]
            """#)
        let run = try project.run("-n", "compile")
        #expect(run.status == 2)
        #expect(run.stderr.contains("error: output 'obj/.o' of task 'compile[b.c]' is also an output of task 'compile[a.c]'"))
        #expect(run.stderr.contains(
            "Tasksfile.yaml:5:15: warning: 'outputs' of task 'compile' uses SCR, which is not set (it expands to nothing); did you mean 'SRC'?"),
            "\(run.stderr)")
    }

    @Test func aSuccessThatDidNotWriteAnOutputIsAWarningAtThatOutput() throws {
        // Before: the task ran every time with nothing said; only --explain told why.
        let project = try TemporaryProject(#"""
            tasks:
              compile:
                each: { SRC: [a.c] }
                run: touch "${SRC%.c}.o"
                outputs: ["${SRC#.c}.o"]
              bundle:
                run: "true"
                outputs: ["dist/*.js"]
              fine:
                run: touch fine.txt
                outputs: [fine.txt]
            """#)
        let run = try project.run("compile", "bundle", "fine")
        #expect(run.status == 0)
        #expect(run.stderr.contains(
            "Tasksfile.yaml:5:15: warning: task 'compile[a.c]' succeeded without writing its output 'a.c.o'; it runs again next time"),
            "\(run.stderr)")
        #expect(run.stderr.contains(
            "Tasksfile.yaml:8:15: warning: task 'bundle' succeeded without writing any file matching its output 'dist/*.js'"))
        #expect(!run.stderr.contains("'fine'"))
    }

    @Test func pathsEmptyOnceExpandedAreAnErrorBeforeAnythingRuns() throws {
        // Before: the empty output was "missing" at every run (never up to date), the empty
        // depfile warned at every run, the empty source was ignored.
        let project = try TemporaryProject(#"""
            tasks:
              pack:
                run: echo ran >> ran.log && touch out.txt
                sources: ["${INPUT}"]
                outputs: [out.txt, "${EXTRA}"]
                depfile: ${DEPS%.d}
              compile:
                each: { SRC: [a, b] }
                run: echo "$SRC" >> ran.log
                outputs: ["${OBJDIR}"]
            """#)
        let run = try project.run("-n", "pack", "compile")
        #expect(run.status == 2)
        let message = "is empty once expanded"
        #expect(run.stderr.contains(
            "Tasksfile.yaml:4:15: error: an entry of 'sources' of task 'pack' is empty once expanded ('${INPUT}'); "
                + "a path cannot be empty: set INPUT, or give it a default ('${INPUT:-...}')"), "\(run.stderr)")
        #expect(run.stderr.contains("Tasksfile.yaml:5:24: error: an entry of 'outputs' of task 'pack' \(message) ('${EXTRA}')"))
        #expect(run.stderr.contains("Tasksfile.yaml:6:14: error: 'depfile' of task 'pack' \(message) ('${DEPS%.d}')"))
        // Once for the task, not once per instance.
        #expect(run.stderr.components(separatedBy: "of task 'compile' \(message)").count == 2, "\(run.stderr)")
        #expect(try project.run("pack").status == 2)
        #expect(!FileManager.default.fileExists(atPath: project.path("ran.log")))
        // Set, they are paths like any other.
        let set = try project.run("INPUT=Tasksfile.yaml", "EXTRA=extra.txt", "DEPS=deps.d", "-n", "pack")
        #expect(set.status == 0, "\(set.stderr)")
    }
}
