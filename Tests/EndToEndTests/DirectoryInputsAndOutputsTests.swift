import Foundation
import Testing

/// Issue 28, item 5 and the dot-file of item 3: a directory named in `sources` or `outputs` stands
/// for every file beneath it, dot-files included (docs/manual/up-to-date.md).
@Suite struct DirectoryInputsAndOutputsTests {
    static let manifest = """
        tasks:
          gen:
            sources: [in.txt, meta.txt]
            outputs: [dist]
            run: mkdir -p dist && cp in.txt dist/a.txt && cp meta.txt dist/.meta
          pack:
            deps: [gen]
            outputs: [pack.txt]
            run: cat dist/a.txt dist/.meta > pack.txt
        """

    func write(_ project: TemporaryProject, _ name: String, _ text: String) throws {
        try text.write(toFile: project.path(name), atomically: false, encoding: .utf8)
    }

    func read(_ project: TemporaryProject, _ name: String) throws -> String {
        try String(contentsOfFile: project.path(name), encoding: .utf8)
    }

    @Test func aPrerequisiteThatRewritesAFileInItsOutputDirectoryMakesItsDependentsRun() throws {
        let project = try TemporaryProject(Self.manifest, files: ["in.txt": "one\n", "meta.txt": "m1\n"])
        #expect(try project.run("pack").status == 0)
        #expect(try read(project, "pack.txt") == "one\nm1\n")

        try write(project, "in.txt", "two\n")
        let second = try project.run("pack", "--explain", "--no-cache")
        #expect(second.status == 0)
        #expect(second.stdout.contains("pack runs: prerequisite gen wrote different outputs\n"), "\(second.stdout)")
        #expect(try read(project, "pack.txt") == "two\nm1\n")

        // A dot-file beneath it counts as much.
        try write(project, "meta.txt", "m2\n")
        let third = try project.run("pack", "--explain", "--no-cache")
        #expect(third.stdout.contains("pack runs: prerequisite gen wrote different outputs\n"), "\(third.stdout)")
        #expect(try read(project, "pack.txt") == "two\nm2\n")
        #expect(try project.run("pack").stdout == "0 succeeded, 2 up to date\n")
    }

    @Test func aFileEditedAddedOrRemovedByHandInAnOutputDirectoryMakesItsTaskRun() throws {
        let project = try TemporaryProject(Self.manifest, files: ["in.txt": "one\n", "meta.txt": "m1\n"])
        #expect(try project.run("gen").status == 0)

        try write(project, "dist/a.txt", "edited by hand\n")
        let edited = try project.run("gen", "--explain", "--no-cache")
        #expect(edited.stdout.hasPrefix("gen runs: output dist/a.txt changed since its last run\n▶ gen\n"), "\(edited.stdout)")
        #expect(try read(project, "dist/a.txt") == "one\n")

        try write(project, "dist/added.txt", "added by hand\n")
        let added = try project.run("gen", "--explain", "--no-cache")
        #expect(added.stdout.hasPrefix("gen runs: output dist/added.txt changed since its last run\n▶ gen\n"), "\(added.stdout)")

        try FileManager.default.removeItem(atPath: project.path("dist/.meta"))
        let removed = try project.run("gen", "--explain", "--no-cache")
        #expect(removed.stdout.hasPrefix("gen runs: output dist/.meta missing\n▶ gen\n"), "\(removed.stdout)")
        #expect(try read(project, "dist/.meta") == "m1\n")
        #expect(try project.run("gen").stdout == "0 succeeded, 1 up to date\n")
    }

    /// The cache stores "the outputs the run found": a directory's are its files.
    @Test func anOutputDirectoryIsStoredAndRestoredByTheCache() throws {
        let project = try TemporaryProject(Self.manifest, files: ["in.txt": "one\n", "meta.txt": "m1\n"])
        #expect(try project.run("gen").status == 0)
        try FileManager.default.removeItem(atPath: project.path("dist"))
        let result = try project.run("gen")
        #expect(result.stdout == "↓ gen (cached)\n0 succeeded, 1 restored\n", "\(result.stderr)")
        #expect(try read(project, "dist/a.txt") == "one\n")
        #expect(try read(project, "dist/.meta") == "m1\n")
    }

    @Test func aDotFileBeneathASourceDirectoryIsASource() throws {
        let project = try TemporaryProject("""
            tasks:
              build: { sources: [src], outputs: [out.txt], run: cat src/main.txt src/.config > out.txt }
            """, files: ["src/main.txt": "main\n", "src/.config": "debug=0\n"])
        #expect(try project.run("build").status == 0)
        try write(project, "src/.config", "debug=1\n")
        let result = try project.run("build", "--explain", "--no-cache")
        #expect(result.stdout.hasPrefix("build runs: source src/.config changed\n▶ build\n"), "\(result.stdout)")
        #expect(try read(project, "out.txt") == "main\ndebug=1\n")
    }

    /// A task that writes into its prerequisite's output directory does not find its own output
    /// there as a change of that prerequisite: else it would run again every time.
    @Test func aTasksOwnOutputInsideItsPrerequisitesOutputDirectoryIsNotAChangeOfThatPrerequisite() throws {
        let project = try TemporaryProject("""
            tasks:
              mkdir: { outputs: [build], run: mkdir -p build }
              compile: { deps: [mkdir], sources: [a.c], outputs: [build/a.o], run: date +%s%N > build/a.o }
            """, files: ["a.c": "int a;\n"])
        #expect(try project.run("compile").status == 0)
        let second = try project.run("compile", "--explain")
        #expect(second.stdout == "0 succeeded, 2 up to date\n", "\(second.stdout)")
    }

    /// Siblings writing into the same prerequisite's directory (an `each` compile into `build`)
    /// are not changes of it either: each `.o` is its compile's, not `mkdir`'s. Before, every
    /// compile found its siblings' objects as "prerequisite mkdir wrote different outputs", and
    /// with objects that differ at each build (a timestamp) the run never settled.
    @Test func siblingsWritingIntoAPrerequisitesOutputDirectoryAreNotChangesOfIt() throws {
        let project = try TemporaryProject("""
            tasks:
              mkdir: { outputs: [build], run: mkdir -p build }
              compile:
                each: { SRC: "*.c" }
                deps: [mkdir]
                sources: ["${SRC}"]
                outputs: ["build/${SRC%.c}.o"]
                run: date +%s%N > "build/${SRC%.c}.o"
            """, files: ["a.c": "int a;\n", "b.c": "int b;\n", "c.c": "int c;\n"])
        #expect(try project.run("compile", "-j", "1").status == 0)
        let second = try project.run("compile", "--explain")
        #expect(second.stdout == "0 succeeded, 4 up to date\n", "\(second.stdout)")
    }

    /// `sources: [.]` is every file in the task's directory, not in `/`: the walk began at the
    /// file system's root, read /proc for minutes and never ended.
    @Test func theTasksOwnDirectoryAsASourceIsEveryFileInItAndNothingElse() throws {
        let project = try TemporaryProject("""
            tasks:
              count:
                dir: sub
                sources: [.]
                outputs: [../count.txt]
                run: ls -A | wc -l > ../count.txt
            """, files: ["sub/a.txt": "a\n", "sub/.hidden": "h\n"])
        #expect(try project.run("count").status == 0)
        #expect(try project.run("count").stdout == "0 succeeded, 1 up to date\n")
        try write(project, "sub/.hidden", "changed\n")
        let changed = try project.run("count", "--explain")
        #expect(changed.stdout.hasPrefix("count runs: source .hidden changed\n"), "\(changed.stdout)")
    }

    @Test func anOutputThatIsTheTasksOwnDirectoryIsAnError() throws {
        let project = try TemporaryProject("""
            tasks:
              gen:
                dir: sub
                sources: [../in.txt]
                outputs: [out, "."]
                run: echo gen > g.txt
            """, files: ["in.txt": "1\n"])
        let result = try project.run("gen")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(
            "Tasksfile.yaml:5:20: error: an output of task 'gen' is '.', the task's own directory or one above it, "
                + "which holds its sources and the manifest; name the files or a directory it writes (build/, dist/)\n"),
            "\(result.stderr)")
    }
}
