import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/cache.md, the shared cache, through the real binary and a real nginx speaking Bazel's HTTP
/// cache protocol; and the servers a cache must survive: one that refuses, hangs, answers garbage,
/// or holds a tampered blob. The cache only ever makes a run faster.
@Suite struct RemoteCacheTests {
    /// Each clone has a local cache of its own, so what it restores came from the server.
    func clone(_ input: String = "one") throws -> TemporaryProject {
        try TemporaryProject(OutputCacheTests.manifest, files: ["in.txt": input + "\n"])
    }

    func run(_ project: TemporaryProject, _ arguments: String..., environment: [String: String] = [:]) throws
        -> OpsrunBinary.Result
    {
        try OpsrunBinary.run(arguments, in: project.url, environment: environment)
    }

    func ran(_ project: TemporaryProject) -> [String] {
        let text = (try? String(contentsOfFile: project.path("ran.log"), encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: project.path("ran.log"))
        return text.split(separator: "\n").map(String.init)
    }

    @Test func aSecondCloneRestoresEveryTaskFromNginxAndRunsNone() throws {
        let server = try NginxCacheServer()
        let first = try clone()
        #expect(try run(first, "--remote-cache", server.url).status == 0)
        #expect(ran(first) == ["gen", "use"])
        #expect(server.stored("ac").count == 2)
        // Output blobs and the log are in the content-addressed store, under their SHA-256.
        #expect(server.stored("cas").count >= 3)

        let second = try clone()
        let result = try run(second, "--remote-cache", server.url)
        #expect(result.status == 0)
        #expect(ran(second) == [])
        #expect(result.stdout == "gen | generating from one\n↓ gen (cached)\n↓ use (cached)\n0 succeeded, 2 restored\n")
        #expect(try String(contentsOfFile: second.path("out/use.txt"), encoding: .utf8) == "one\n")
        var info = stat()
        stat(second.path("out/gen.sh"), &info)
        #expect(info.st_mode & 0o7777 == 0o750)
    }

    /// Tasks ready at once have their entries asked for together, not one round trip after
    /// another: the server holds its first answer until it has seen every task's request.
    @Test func theEntriesOfTasksReadyTogetherAreAskedForBeforeTheFirstIsAnswered() throws {
        let names = ["a", "b", "c", "d"]
        let manifest = "tasks:\n" + names.map { name in
            """
              \(name):
                sources: [in.txt]
                outputs: [out/\(name).txt]
                run: echo \(name) >> ran.log && mkdir -p out && cp in.txt out/\(name).txt

            """
        }.joined()
        let server = try NginxCacheServer()
        let first = try TemporaryProject(manifest, files: ["in.txt": "one\n"])
        #expect(try run(first, "--remote-cache", server.url, "a", "b", "c", "d").status == 0)
        #expect(server.stored("ac").count == 4)

        let gated = try GatedCacheServer(serving: server.root, holding: names.count)
        let second = try TemporaryProject(manifest, files: ["in.txt": "one\n"])
        let result = try run(second, "--remote-cache", gated.url, "--remote-cache-read-only", "a", "b", "c", "d")
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("0 succeeded, 4 restored\n"), "\(result.stdout)")
        #expect(ran(second) == [])
        #expect(gated.mostHeldAtOnce == names.count)
        for name in names {
            #expect(try String(contentsOfFile: second.path("out/\(name).txt"), encoding: .utf8) == "one\n")
        }
    }

    @Test func readOnlyRestoresButNeverWrites() throws {
        let server = try NginxCacheServer()
        #expect(try run(try clone(), "--remote-cache", server.url, "--remote-cache-read-only").status == 0)
        #expect(server.stored("ac").isEmpty && server.stored("cas").isEmpty)
        #expect(try run(try clone(), environment: ["OPSRUN_REMOTE_CACHE": server.url]).status == 0)
        let reader = try clone()
        #expect(try run(reader, "--remote-cache", server.url, "--remote-cache-read-only").stdout.hasSuffix("2 restored\n"))
        #expect(ran(reader) == [])
    }

    @Test func theHeaderIsSentAndNeverPrinted() throws {
        let server = try NginxCacheServer(requiredAuthorization: "Bearer s3cret-token")
        let header = ["OPSRUN_REMOTE_CACHE_HEADER": "Authorization: Bearer s3cret-token"]
        let first = try run(try clone(), "-v", "--remote-cache", server.url, environment: header)
        #expect(first.status == 0 && server.stored("ac").count == 2)
        let second = try clone()
        let restored = try run(second, "-v", "--explain", "--remote-cache", server.url, environment: header)
        #expect(ran(second) == [])
        // Without it the server says 401: one warning, and the tasks run.
        let refused = try run(try clone(), "--remote-cache", server.url)
        #expect(refused.status == 0)
        #expect(refused.stderr.contains("warning: remote cache \(server.url): GET ac/…: HTTP 401; going on without it"))
        for output in [first.stdout, first.stderr, restored.stdout, restored.stderr, refused.stdout, refused.stderr] {
            #expect(!output.contains("s3cret"))
        }
    }

    @Test func aTamperedBlobOnTheServerIsIgnoredAndTheTaskRuns() throws {
        let server = try NginxCacheServer()
        #expect(try run(try clone(), "--remote-cache", server.url).status == 0)
        for blob in server.stored("cas") {
            let path = server.root + "/cas/" + blob
            let size = try Data(contentsOf: URL(fileURLWithPath: path)).count
            try Data(repeating: UInt8(ascii: "x"), count: size).write(to: URL(fileURLWithPath: path))
        }
        let second = try clone()
        let result = try run(second, "--remote-cache", server.url)
        #expect(result.status == 0)
        #expect(ran(second) == ["gen", "use"])
        #expect(try String(contentsOfFile: second.path("out/use.txt"), encoding: .utf8) == "one\n")
        #expect(!result.stderr.contains("warning: remote cache"))
    }

    /// A refusing, hanging or garbage-speaking server: one warning, a bounded wait, and the run
    /// is what it would have been without the cache.
    @Test(arguments: ["refuses", "hangs", "answers garbage"])
    func aBrokenServerCostsOneWarningAndTheTasksRun(_ kind: String) throws {
        var broken: BrokenServer?
        let url: String
        switch kind {
        case "refuses": url = "http://127.0.0.1:\(try freeLoopbackPort())"
        case "hangs": broken = try BrokenServer(.hang); url = broken!.url
        default: broken = try BrokenServer(.garbage); url = broken!.url
        }
        defer { _ = broken }
        let project = try clone()
        let started = Date()
        let result = try run(project, "--remote-cache", url, environment: ["OPSRUN_REMOTE_CACHE_TIMEOUT": "1s"])
        #expect(result.status == 0)
        #expect(ran(project) == ["gen", "use"])
        #expect(try String(contentsOfFile: project.path("out/use.txt"), encoding: .utf8) == "one\n")
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("warning: remote cache") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("2 succeeded\n"))
        // One timeout of 1 s at most, however many requests the run would have made.
        #expect(Date().timeIntervalSince(started) < 15)
    }

    /// A port nothing listens on refuses at once; the client used to try again with backoff until
    /// its 2 s connect timeout, so every run with an unreachable cache paid 2 s. Now one attempt,
    /// one warning. Timed with a monotonic clock against that 2 s: the old retry loop cannot end
    /// before it, and the run takes tens of milliseconds without it (a margin of about fifty).
    @Test func aRefusedConnectionIsOneWarningAndNoWait() throws {
        let url = "http://127.0.0.1:\(try freeLoopbackPort())"
        let project = try clone()
        let started = ContinuousClock.now
        let result = try run(project, "--remote-cache", url)
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 0)
        #expect(ran(project) == ["gen", "use"])
        #expect(result.stderr == "warning: remote cache \(url): connection refused; going on without it\ngen | a warning\n")
        #expect(elapsed < .seconds(2), "a refused connection took \(elapsed)")
    }
}

