import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/depfiles.md, "Depfiles", through the real binary and the system's C compiler: `cc -MMD` writes
/// which headers each file included, and editing one recompiles exactly the files that include it.
@Suite struct DepfileTests {
    static func compile(_ name: String) -> String {
        """
          compile-\(name):
            run: mkdir -p build && echo \(name) >> ran.log && cc -Iinclude -MMD -c src/\(name).c -o build/\(name).o
            sources: [src/\(name).c]
            outputs: [build/\(name).o]
            depfile: build/\(name).d

        """
    }

    static let manifest = "default: app\ntasks:\n" + ["a", "b", "c", "d"].map(compile).joined() + """
          app:
            deps: [compile-a, compile-b, compile-c, compile-d]
            run: cc -o build/app build/a.o build/b.o build/c.o build/d.o
            outputs: [build/app]
        """

    let project: TemporaryProject

    init() throws {
        project = try TemporaryProject(Self.manifest, files: [
            "include/common.h": "#define COMMON 1\n",
            "include/d.h": "#define D 1\n",
            "src/a.c": "#include \"common.h\"\nint main(void) { return 0; }\n",
            "src/b.c": "#include \"common.h\"\nint b(void) { return COMMON; }\n",
            "src/c.c": "#include <common.h>\nint c(void) { return COMMON; }\n",
            "src/d.c": "#include \"d.h\"\nint d(void) { return D; }\n",
        ])
        project.waitUntilFileTimesArePast()
    }

    /// The compiles that ran since the last call, sorted.
    func ran() throws -> [String] {
        let path = project.path("ran.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init).sorted()
    }

    func edit(_ name: String, _ text: String) throws {
        try text.write(toFile: project.path(name), atomically: false, encoding: .utf8)
        project.waitUntilFileTimesArePast()
    }

    @Test func editingAHeaderRerunsExactlyTheFilesThatIncludeIt() throws {
        let first = try project.run()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try ran() == ["a", "b", "c", "d"])
        #expect(try project.run().stdout == "0 succeeded, 5 up to date\n")
        try edit("include/common.h", "#define COMMON 2\n")
        let result = try project.run("--explain", "-j", "1")
        #expect(try ran() == ["a", "b", "c"])
        for name in ["a", "b", "c"] {
            #expect(result.stdout.contains("compile-\(name) runs: source include/common.h changed\n"), "\(result.stdout)")
        }
        try edit("include/d.h", "#define D 2\n")
        #expect(try project.run().status == 0)
        #expect(try ran() == ["d"])
        #expect(try project.run().stdout == "0 succeeded, 5 up to date\n")
    }

    @Test func aNoOpRunNeedsNoDepfile() throws {
        #expect(try project.run().status == 0)
        _ = try ran()
        // What they listed is in `.opsrun/`: the depfiles may go.
        for name in ["a", "b", "c", "d"] { try FileManager.default.removeItem(atPath: project.path("build/\(name).d")) }
        #expect(try project.run().stdout == "0 succeeded, 5 up to date\n")
        try edit("include/d.h", "#define D 3\n")
        #expect(try project.run().status == 0)
        #expect(try ran() == ["d"])
    }

    @Test func aDryRunShowsWhatEachDepfileListed() throws {
        let before = try project.run("-n", "compile-a")
        #expect(before.stdout == """
            wave 1:
              compile-a
                $ mkdir -p build && echo a >> ran.log && cc -Iinclude -MMD -c src/a.c -o build/a.o
                depfile build/a.d: not read yet

            """)
        #expect(try project.run().status == 0)
        try edit("include/common.h", "#define COMMON 3\n")
        let after = try project.run("-n", "--explain", "compile-a")
        #expect(after.stdout == """
            wave 1:
              compile-a
                $ mkdir -p build && echo a >> ran.log && cc -Iinclude -MMD -c src/a.c -o build/a.o
                depfile build/a.d: include/common.h src/a.c

            """)
        #expect(after.stderr == "compile-a runs: source include/common.h changed\n")
    }

    @Test func aTaskThatDoesNotWriteItsDepfileIsWarnedAboutAndRunsAgain() throws {
        let project = try TemporaryProject("""
            default: gen
            tasks:
              gen:
                run: echo gen >> ran.log && echo x > out.txt
                outputs: [out.txt]
                depfile: out.d
            """)
        let first = try project.run()
        #expect(first.status == 0)
        #expect(first.stderr == """
            Tasksfile.yaml:6:14: warning: task 'gen' succeeded without writing its depfile 'out.d'; it runs again next time

            """)
        let second = try project.run("--explain")
        #expect(second.stdout.hasPrefix("gen runs: its last run did not write its depfile out.d\n"))
        #expect(try String(contentsOfFile: project.path("ran.log"), encoding: .utf8) == "gen\ngen\n")
    }

    /// Issue 28, item 12: a file name is shown with its control characters escaped, so that no
    /// escape sequence in it reaches the terminal.
    @Test func aDryRunShowsControlCharactersInListedNamesEscaped() throws {
        let name = "e\u{1B}[31mred.h"
        let project = try TemporaryProject("""
            tasks:
              cc:
                sources: [main.c]
                outputs: [main.o]
                depfile: main.d
                run: "touch main.o && printf 'main.o: main.c e\\\\033[31mred.h\\\\n' > main.d"
            """, files: ["main.c": "main\n", name: "red\n"])
        project.waitUntilFileTimesArePast()
        #expect(try project.run("cc").status == 0)
        try "edited\n".write(toFile: project.path(name), atomically: false, encoding: .utf8)
        let plan = try project.run("cc", "-n", "--explain")
        #expect(plan.stdout == #"""
            wave 1:
              cc
                $ touch main.o && printf 'main.o: main.c e\033[31mred.h\n' > main.d
                depfile main.d: e\u{1B}[31mred.h main.c

            """#)
        #expect(plan.stderr == #"cc runs: source e\u{1B}[31mred.h changed"# + "\n")
    }

    /// Issue 28, item 12: a file the depfile listed that changed while the compile ran (or in the
    /// clock tick it started in) cannot be trusted; `--explain` says so rather than "changed".
    @Test func explainSaysAListedFileWrittenWhileItsTaskRanCannotBeTrusted() throws {
        let project = try TemporaryProject("""
            tasks:
              cc:
                sources: [main.c]
                outputs: [main.o]
                depfile: main.d
                run: "echo y > y.h && touch main.o && echo 'main.o: main.c y.h' > main.d"
            """, files: ["main.c": "main\n"])
        project.waitUntilFileTimesArePast()
        #expect(try project.run("cc").status == 0)
        let second = try project.run("cc", "--explain")
        #expect(second.stdout.hasPrefix("""
            cc runs: source y.h was written while its last run ran, so its content cannot be trusted
            ▶ cc

            """), "\(second.stdout)")
    }

    @Test func theDepfilesDirectoryIsMadeBeforeTheCompile() throws {
        let project = try TemporaryProject("""
            tasks:
              compile:
                run: cc -MMD -MF deps/a.d -c a.c -o a.o
                sources: [a.c]
                outputs: [a.o]
                depfile: deps/a.d
            """, files: ["a.c": "int a;\n"])
        let result = try project.run("compile")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: project.path("deps/a.d")))
    }
}

extension TemporaryProject {
    /// `waitUntilFileTimesArePast(in:)` for this project.
    func waitUntilFileTimesArePast() { EndToEndTests.waitUntilFileTimesArePast(in: url.path) }
}
