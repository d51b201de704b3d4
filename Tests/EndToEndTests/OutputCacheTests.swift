import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/cache.md through the real binary, local cache: a task out of date whose key is cached is
/// restored (outputs, modes, log) instead of run; `--no-cache`, `OPSRUN_NO_CACHE`, `cache: false`;
/// a tampered blob is ignored; the size bound evicts.
@Suite struct OutputCacheTests {
    static let manifest = """
        default: use
        tasks:
          gen:
            sources: [in.txt]
            outputs: [out/gen.sh]
            run:
              - echo gen >> ran.log
              - echo "generating from $(cat in.txt)"
              - echo "a warning" >&2
              - mkdir -p out && { echo '#!/bin/sh'; echo "echo $(cat in.txt)"; } > out/gen.sh && chmod 750 out/gen.sh
          use:
            deps: [gen]
            sources: [out/gen.sh]
            outputs: [out/use.txt]
            run: echo use >> ran.log && ./out/gen.sh > out/use.txt
        """

    /// One cache shared by the clones of a test, apart from every other test's.
    let cacheDirectory = TemporaryCacheDirectory()
    var cache: String { cacheDirectory.path }

    func clone(_ input: String = "one", manifest: String = Self.manifest) throws -> TemporaryProject {
        try TemporaryProject(manifest, files: ["in.txt": input + "\n"])
    }

    func run(_ project: TemporaryProject, _ arguments: String..., environment: [String: String] = [:]) throws
        -> OpsrunBinary.Result
    {
        var env = environment
        env["OPSRUN_CACHE_DIR"] = env["OPSRUN_CACHE_DIR"] ?? cache
        return try OpsrunBinary.run(arguments, in: project.url, environment: env)
    }

    func ran(_ project: TemporaryProject) -> [String] {
        let path = project.path("ran.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func aSecondCloneRestoresEveryTaskAndRunsNone() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let first = try clone()
        #expect(try run(first).status == 0)
        #expect(ran(first) == ["gen", "use"])

        let second = try clone()
        let result = try run(second)
        #expect(result.status == 0)
        #expect(ran(second) == [])
        #expect(result.stdout == "gen | generating from one\n↓ gen (cached)\n↓ use (cached)\n0 succeeded, 2 restored\n")
        #expect(result.stderr == "gen | a warning\n")
        #expect(try String(contentsOfFile: second.path("out/use.txt"), encoding: .utf8) == "one\n")
        #expect(mode(second.path("out/gen.sh")) == 0o750)
        // Restored is recorded as a success: the next run finds both up to date.
        #expect(try run(second).stdout == "0 succeeded, 2 up to date\n")
    }

    @Test func switchingBackRestoresInsteadOfRunning() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let project = try clone()
        #expect(try run(project).status == 0)
        _ = ran(project)
        try "two\n".write(toFile: project.path("in.txt"), atomically: false, encoding: .utf8)
        #expect(try run(project).status == 0)
        #expect(ran(project) == ["gen", "use"])
        try "one\n".write(toFile: project.path("in.txt"), atomically: false, encoding: .utf8)
        let back = try run(project, "--explain")
        #expect(ran(project) == [])
        #expect(back.stdout.contains("gen is restored from the local cache: source in.txt changed\n"))
        #expect(try String(contentsOfFile: project.path("out/use.txt"), encoding: .utf8) == "one\n")
    }

    @Test func aDeletedOutputIsRestored() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let project = try clone()
        #expect(try run(project).status == 0)
        _ = ran(project)
        try FileManager.default.removeItem(atPath: project.path("out/use.txt"))
        let result = try run(project)
        #expect(result.stdout == "↓ use (cached)\n0 succeeded, 1 up to date, 1 restored\n")
        #expect(ran(project) == [])
        #expect(try String(contentsOfFile: project.path("out/use.txt"), encoding: .utf8) == "one\n")
    }

    @Test func noCacheOptionEnvironmentAndTaskKeyRunTheTask() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        #expect(try run(try clone()).status == 0)
        let optionOff = try clone()
        #expect(try run(optionOff, "--no-cache").stdout.contains("2 succeeded"))
        #expect(ran(optionOff) == ["gen", "use"])
        let environmentOff = try clone()
        #expect(try run(environmentOff, environment: ["OPSRUN_NO_CACHE": "1"]).stdout.contains("2 succeeded"))
        #expect(ran(environmentOff) == ["gen", "use"])
        let keyOff = try clone(manifest: Self.manifest.replacingOccurrences(
            of: "    deps: [gen]\n", with: "    deps: [gen]\n    cache: false\n"))
        let result = try run(keyOff)
        #expect(ran(keyOff) == ["use"])
        #expect(result.stdout.contains("1 succeeded, 1 restored"))
    }

    @Test func aTamperedEntryIsIgnoredAndTheTaskRuns() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        #expect(try run(try clone()).status == 0)
        // Small outputs live inside their entry: change the bytes of gen.sh there, keeping sizes.
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache + "/ac")
        var tampered = 0
        for entry in entries {
            let url = URL(fileURLWithPath: cache + "/ac/" + entry)
            var bytes = try Data(contentsOf: url)
            if let found = bytes.range(of: Data("echo one".utf8)) {
                bytes.replaceSubrange(found, with: Data("echo six".utf8))
                tampered += 1
            }
            try bytes.write(to: url)
        }
        #expect(tampered == 1)
        let second = try clone()
        let result = try run(second)
        #expect(result.status == 0)
        // gen runs again; what it writes is what use's entry was made from, so use is restored.
        #expect(ran(second) == ["gen"])
        #expect(result.stdout.hasSuffix("1 succeeded, 1 restored\n"))
        #expect(try String(contentsOfFile: second.path("out/gen.sh"), encoding: .utf8) == "#!/bin/sh\necho one\n")
        #expect(try String(contentsOfFile: second.path("out/use.txt"), encoding: .utf8) == "one\n")
    }

    @Test func concurrentRunsShareTheCacheSafely() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let clones = try (0..<3).map { _ in try clone() }
        let started = try clones.map { project in
            try OpsrunBinary.start([], in: project.url, environment: ["OPSRUN_CACHE_DIR": cache])
        }
        for running in started { #expect(running.wait().status == 0) }
        let last = try clone()
        #expect(try run(last).stdout.hasSuffix("0 succeeded, 2 restored\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/tmp").isEmpty)
    }

    @Test func theSizeBoundEvictsWhatDoesNotFit() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        #expect(try run(try clone(), "--cache-size", "1K").status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/ac").isEmpty)
        let second = try clone()
        #expect(try run(second).status == 0)
        #expect(ran(second) == ["gen", "use"])
        #expect(try run(try clone(), "--cache-size", "1G").stdout.hasSuffix("0 succeeded, 2 restored\n"))
    }

    @Test func reportsSayRestored() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        #expect(try run(try clone()).status == 0)
        let second = try clone()
        #expect(try run(second, "--report", "run.json", "--junit", "junit.xml").status == 0)
        let report = try String(contentsOfFile: second.path("run.json"), encoding: .utf8)
        #expect(report.contains("\"restored\": 2"))
        #expect(report.contains("\"state\": \"restored\""))
        let junit = try String(contentsOfFile: second.path("junit.xml"), encoding: .utf8)
        #expect(junit.contains("<system-out>restored from the output cache</system-out>"))
    }

    @Test func aBadCacheSizeIsAUsageError() throws {
        let result = try run(try clone(), "--cache-size", "lots")
        #expect(result.status == 2)
        #expect(result.stderr.contains("--cache-size takes a size such as 5G"))
    }
}
