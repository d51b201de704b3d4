import Foundation
import Testing

/// docs/manual/each.md, `each` with the shell's `${...}` forms, `requires` and `TASK -- ARG...`, through the
/// real binary: the two halves of issue 15 working together.
@Suite struct EachWithExpansionTests {
    static let manifest = """
        tasks:
          compile:
            each: { SRC: "src/*.c" }
            run: cp "$SRC" "build/${SRC%.c}.o" && echo "$SRC" >> ran.log
            sources: ["${SRC}"]
            outputs: ["build/${SRC%.c}.o"]
        """

    @Test func shellFormsNameEachInstancesOutputs() throws {
        let project = try TemporaryProject(Self.manifest, files: ["src/a.c": "int a;\n", "src/b.c": "int b;\n"])
        let first = try project.run("compile")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        // opsrun made build/src/ from the expanded outputs, and the files have the names it expanded.
        #expect(try String(contentsOfFile: project.path("build/src/a.o"), encoding: .utf8) == "int a;\n")
        #expect(try String(contentsOfFile: project.path("build/src/b.o"), encoding: .utf8) == "int b;\n")
        // Each instance finds its own output: nothing runs again.
        let again = try project.run("compile")
        #expect(again.status == 0)
        #expect(again.stdout == "0 succeeded, 2 up to date\n")
        try "int b = 2;\n".write(toFile: project.path("src/b.c"), atomically: false, encoding: .utf8)
        let edited = try project.run("compile", "--explain")
        #expect(edited.stdout.contains("compile[src/b.c] runs: source src/b.c changed"))
        #expect(!edited.stdout.contains("compile[src/a.c] runs"))
    }

    @Test func eachValuesTakeTheShellsFormsAndColonQuestionStopsTheRun() throws {
        let project = try TemporaryProject(
            """
            tasks:
              pack:
                each: { NAME: ["${PREFIX:-lib}-${KIND:?set KIND}"] }
                run: echo "$NAME" > out
            """)
        let missing = try project.run("pack")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("Tasksfile.yaml:3:"), "\(missing.stderr)")
        #expect(missing.stderr.contains("'NAME' in 'each' of task 'pack' needs KIND, which is not set or is empty: set KIND"))
        let ok = try project.run("pack", "KIND=x")
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("pack[lib-x]"))
        #expect(try String(contentsOfFile: project.path("out"), encoding: .utf8) == "lib-x\n")

        let unsupported = try TemporaryProject("tasks:\n  t:\n    each: { X: [\"${Y/a/b}\"] }\n    run: true\n")
        let error = try unsupported.run("t")
        #expect(error.status == 2)
        #expect(error.stderr.contains("unsupported expansion '${Y/a/b}'"), "\(error.stderr)")
    }

    @Test func eachValuesThatCannotBeMadeStopOnlyTheRunsThatNeedThemAllSaidAtOnce() throws {
        let project = try TemporaryProject(
            """
            tasks:
              g:
                each: { SRC: "${SRCDIR:?set SRCDIR}/*.c" }
                run: echo "$SRC"
              k:
                each: { X: ["${A:-${Z:?need Z}}"] }
                run: echo "$X"
              plain: echo plain
            """)
        let plain = try project.run("plain")
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("plain\n"))
        #expect(try project.run("--list").status == 0)
        #expect(try project.run("--graph").status == 0)
        let both = try project.run("g", "k")
        #expect(both.status == 2)
        #expect(both.stderr.contains("Tasksfile.yaml:3:19: error: 'SRC' in 'each' of task 'g' needs SRCDIR"), "\(both.stderr)")
        #expect(both.stderr.contains("'X' in 'each' of task 'k' needs Z, which is not set or is empty: need Z"), "\(both.stderr)")
    }

    @Test func anInstancesOwnVariableCountsAsSetForRequires() throws {
        let project = try TemporaryProject(
            """
            tasks:
              t:
                each: { SRC: [a, b] }
                requires: [SRC, TOKEN]
                outputs: ["out/${SRC}${SUFFIX:?}"]
                run: "true"
            """)
        let result = try project.run("t")
        #expect(result.status == 2)
        // Said once for the task, not once per instance; SRC is not missing.
        #expect(result.stderr.components(separatedBy: "requires TOKEN, which is not set").count == 2, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "'outputs' of task 't' needs SUFFIX").count == 2, "\(result.stderr)")
        #expect(!result.stderr.contains("requires SRC"))
        #expect(try project.run("t", "TOKEN=1", "SUFFIX=.o").status == 0)
    }

    @Test func argumentsGoToAnInstanceOrToEveryInstance() throws {
        let project = try TemporaryProject(
            """
            tasks:
              t:
                each: { V: [a, b] }
                run: echo "$V $*" >> log
            """)
        #expect(try project.run("t[b]", "--", "x", "y").status == 0)
        #expect(try String(contentsOfFile: project.path("log"), encoding: .utf8) == "b x y\n")
        try FileManager.default.removeItem(atPath: project.path("log"))
        #expect(try project.run("-j", "1", "t", "--", "z").status == 0)
        #expect(try String(contentsOfFile: project.path("log"), encoding: .utf8) == "a z\nb z\n")
        let plan = try project.run("-n", "t[a]", "--", "q")
        #expect(plan.stdout.contains("$ echo \"a $*\" >> log  # args: q"), "\(plan.stdout)")  // V substituted, $* the shell's
    }
}
