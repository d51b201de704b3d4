import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/watch.md: `-w/--watch` runs, then runs what is out of date whenever a source of the tasks
/// asked for, or the manifest, changes; Ctrl-C ends it.
@Suite struct WatchTests {
    static let manifest = """
        tasks:
          build:
            run: cat src/*.txt > out/all; echo built >> log
            sources: ["src/*.txt"]
            outputs: [out/all]
          other:
            run: echo other >> other-log
            sources: [elsewhere.txt]

        """

    func project() throws -> TemporaryProject {
        try TemporaryProject(Self.manifest, files: ["src/a.txt": "a\n", "elsewhere.txt": "x\n", "notes.md": "n\n"])
    }

    func lines(_ project: TemporaryProject, _ file: String) -> [String] {
        ((try? String(contentsOfFile: project.path(file), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits until `file` has `count` lines.
    func waitForLines(_ project: TemporaryProject, _ file: String, _ count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        waitUntil("\(count) lines in \(file)", sourceLocation: sourceLocation) { lines(project, file).count >= count }
    }

    /// Waits until opsrun says it is watching for the `count`th time (after its `count`th run).
    func waitForWatching(_ running: OpsrunBinary.Running, _ count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let watched = waitUntil("opsrun to watch for the \(count)th time", sourceLocation: sourceLocation) {
            running.errorSoFar.components(separatedBy: "watching for changes").count - 1 >= count
        }
        if !watched { Issue.record("its output so far:\n\(running.outputSoFar)\n\(running.errorSoFar)", sourceLocation: sourceLocation) }
    }

    @Test func aChangedSourceRunsTheTaskAgainAndOtherFilesDoNot() throws {
        let project = try project()
        let running = try project.start("-w", "build")
        defer { running.stopIfRunning() }
        waitForWatching(running, 1)
        #expect(lines(project, "log") == ["built"])

        // Not sources of the task asked for, nor the manifest: nothing runs for them. Then a
        // source changes: one run, which sees all the changes made so far.
        try "y\n".write(toFile: project.path("elsewhere.txt"), atomically: false, encoding: .utf8)
        try "m\n".write(toFile: project.path("notes.md"), atomically: true, encoding: .utf8)
        try "b\n".write(toFile: project.path("src/b.txt"), atomically: true, encoding: .utf8)
        waitForLines(project, "log", 2)
        waitForWatching(running, 2)
        #expect(try String(contentsOfFile: project.path("out/all"), encoding: .utf8) == "a\nb\n")

        // An editor's save: a new file renamed over the old one.
        try "A\n".write(toFile: project.path("src/a.txt"), atomically: true, encoding: .utf8)
        waitForLines(project, "log", 3)
        waitForWatching(running, 3)
        #expect(try String(contentsOfFile: project.path("out/all"), encoding: .utf8) == "A\nb\n")
        #expect(lines(project, "log") == ["built", "built", "built"])
        #expect(!running.outputSoFar.contains("up to date"), "a run started for a file that is no source:\n\(running.outputSoFar)")
        #expect(!FileManager.default.fileExists(atPath: project.path("other-log")))

        kill(running.pid, SIGINT)
        let result = running.wait()
        #expect(result.status == 130)
    }

    @Test func aFileAddedWhereAnEachGlobLooksAndADirectoryMadeAgainStartARun() throws {
        // Before: a new src/c.txt (a new instance) started nothing until something else ran, and
        // after `rm -rf data` and a run, neither did making data again nor adding files to it.
        let project = try TemporaryProject("""
            tasks:
              copy:
                each: { SRC: "src/*.txt" }
                run: echo "$SRC" >> log
                sources: ["${SRC}"]
              sum:
                run: cat data/*.txt > total 2>/dev/null || true; echo summed >> sums
                sources: ["data/*.txt"]
                outputs: [total]
            """, files: ["src/a.txt": "a\n", "data/x.txt": "x\n"])
        let running = try project.start("-w", "copy", "sum")
        defer { running.stopIfRunning() }
        waitForWatching(running, 1)
        #expect(lines(project, "log") == ["src/a.txt"])

        try "c\n".write(toFile: project.path("src/c.txt"), atomically: true, encoding: .utf8)
        waitForLines(project, "log", 2)
        waitForWatching(running, 2)
        #expect(lines(project, "log") == ["src/a.txt", "src/c.txt"])

        try FileManager.default.removeItem(atPath: project.path("data"))
        waitForLines(project, "sums", 2)
        waitForWatching(running, 3)
        // Made again, empty: a run, in which sum is up to date (no sources then, none now).
        try FileManager.default.createDirectory(atPath: project.path("data"), withIntermediateDirectories: false)
        waitForWatching(running, 4)
        #expect(lines(project, "sums").count == 2)
        try "y\n".write(toFile: project.path("data/y.txt"), atomically: true, encoding: .utf8)
        waitForLines(project, "sums", 3)
        waitForWatching(running, 5)
        #expect(try String(contentsOfFile: project.path("total"), encoding: .utf8) == "y\n")

        kill(running.pid, SIGINT)
        #expect(running.wait().status == 130)
    }

    @Test func aChangedManifestIsReloadedAndItsErrorsDoNotEndTheWatch() throws {
        let project = try project()
        let running = try project.start("--watch", "build")
        defer { running.stopIfRunning() }
        waitForWatching(running, 1)

        try "tasks: [\n".write(toFile: project.path("Tasksfile.yaml"), atomically: true, encoding: .utf8)
        waitUntil("the manifest's error") { running.process.isRunning && lines(project, "log").count == 1 && running.errorSoFar.contains("Tasksfile.yaml:2:1: error: ") }
        waitForWatching(running, 2)

        let changed = Self.manifest.replacingOccurrences(of: "echo built", with: "echo rebuilt")
        try changed.write(toFile: project.path("Tasksfile.yaml"), atomically: true, encoding: .utf8)
        waitForLines(project, "log", 2)
        #expect(lines(project, "log") == ["built", "rebuilt"])

        kill(running.pid, SIGTERM)
        #expect(running.wait().status == 143)
    }

    @Test func aChangedIncludedManifestIsReloadedToo() throws {
        let included = """
            tasks:
              build:
                run: echo built >> ../log
                sources: [a.txt]

            """
        let project = try TemporaryProject(
            "includes:\n  sub: sub\n", files: ["sub/Tasksfile.yaml": included, "sub/a.txt": "a\n"])
        let running = try project.start("--watch", "sub:build")
        defer { running.stopIfRunning() }
        waitForWatching(running, 1)
        #expect(lines(project, "log") == ["built"])

        let changed = included.replacingOccurrences(of: "echo built", with: "echo rebuilt")
        try changed.write(toFile: project.path("sub/Tasksfile.yaml"), atomically: true, encoding: .utf8)
        waitForLines(project, "log", 2)
        #expect(lines(project, "log") == ["built", "rebuilt"])

        kill(running.pid, SIGINT)
        #expect(running.wait().status == 130)
    }

    @Test func watchIsForRuns() throws {
        let project = try project()
        let result = try project.run("-w", "--list")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("error: --watch runs tasks; it cannot be used with --list, --graph or --dry-run\n"))
        #expect(try project.run("-w", "--report", "r.json").stderr.hasPrefix("error: --report records one run; --watch makes many\n"))
    }
}

extension OpsrunBinary.Running {
    /// What opsrun has written to its standard error so far.
    var errorSoFar: String {
        errURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
    }
}
