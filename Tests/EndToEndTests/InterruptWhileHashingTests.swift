import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 13, item 4: hashing a large source must not hold up a Ctrl-C (docs/manual/running.md, "Interrupting").
@Suite struct InterruptWhileHashingTests {
    /// A sparse file of `gigabytes`: no disk used, but every byte is read to hash it (many seconds).
    static func sparseFile(at path: String, gigabytes: Int) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(ftruncate(descriptor, off_t(gigabytes) << 30) == 0)
        var info = stat()
        try #require(fstat(descriptor, &info) == 0)
        try #require(info.st_blocks < 2048, "the file system here does not keep sparse files")
    }

    /// Whether process `pid` has the file at `path` open (read from /proc).
    static func hasOpen(_ pid: Int32, _ path: String) -> Bool {
        let directory = "/proc/\(pid)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return descriptors.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)")) == path }
    }

    @Test func interruptWhileASourceIsHashedStartsNothingAndKeepsTheGracePeriod() throws {
        let project = try TemporaryProject("""
            default: after
            tasks:
              first: touch first.done
              stubborn: sh -c 'trap "" TERM; echo $$ > stubborn.pid; while true; do sleep 0.05; done'
              hash: { deps: [first], sources: [big.bin], outputs: [hash.out], run: touch hash.started }
              after: { deps: [hash, stubborn], run: touch after.started }
            """)
        try Self.sparseFile(at: project.path("big.bin"), gigabytes: 64)
        let running = try OpsrunBinary.start(["-j", "2", "--grace", "1s"], in: project.url)
        // Handshake: the stubborn task runs, and opsrun is reading the big source.
        let ready = Date().addingTimeInterval(30)
        func stubbornPID() -> Int32? {
            (try? String(contentsOfFile: project.path("stubborn.pid"), encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        while Date() < ready && !(stubbornPID() != nil && Self.hasOpen(running.pid, project.path("big.bin"))) {
            usleep(10_000)
        }
        try #require(Self.hasOpen(running.pid, project.path("big.bin")), "opsrun never started reading big.bin")
        let pid = try #require(stubbornPID())
        // Should opsrun fail this test and be killed, its stubborn task must not outlive the test.
        defer { if Self.isAlive(pid) && Self.commandLine(of: pid).contains("stubborn.pid") { kill(pid, SIGKILL) } }
        kill(running.pid, SIGINT)
        // Hashing 64 GiB takes far longer; the grace period is 1 s.
        let result = try #require(running.wait(seconds: 8), "opsrun was still running 8 s after SIGINT")
        #expect(result.status == 130)
        #expect(!FileManager.default.fileExists(atPath: project.path("hash.started")))
        #expect(!FileManager.default.fileExists(atPath: project.path("after.started")))
        #expect(!Self.isAlive(pid), "the stubborn task outlived opsrun")
        #expect(result.stdout.hasSuffix("""
            1 succeeded, 1 interrupted, 2 cancelled
            INTERRUPTED by SIGINT
              interrupted  stubborn  interrupted by SIGINT
              2 tasks had not started

            """))
    }

    /// Issue 28, item 11: after a task succeeds, opsrun hashes the files its depfile lists for the
    /// first time; a SIGINT then still ends the run as interrupted, and nothing is recorded.
    @Test func interruptWhileADepfilesNewInputsAreHashedEndsTheRunInterrupted() throws {
        let project = try TemporaryProject("""
            tasks:
              cc:
                sources: [main.c]
                outputs: [main.o]
                depfile: main.d
                run: "touch main.o && echo 'main.o: main.c big.bin' > main.d"
            """, files: ["main.c": "main\n"])
        try Self.sparseFile(at: project.path("big.bin"), gigabytes: 64)
        let running = try project.start("cc")
        // Handshake: the task has ended, and opsrun reads the file its depfile lists.
        guard waitUntil("opsrun to read big.bin", seconds: 30, { Self.hasOpen(running.pid, project.path("big.bin")) }) else {
            return running.stopIfRunning()
        }
        kill(running.pid, SIGINT)
        let result = try #require(running.wait(seconds: 8), "opsrun was still running 8 s after SIGINT")
        #expect(result.status == 130, "\(result.stdout)")
        #expect(result.stdout.hasSuffix("""
            1 succeeded
            INTERRUPTED by SIGINT

            """), "\(result.stdout)")
        // Not recorded as up to date: a dry run says it runs.
        let plan = try project.run("cc", "-n", "--explain")
        #expect(plan.stderr == "cc runs: no record of a previous run\n", "\(plan.stderr)")
    }

    static func commandLine(of pid: Int32) -> String {
        (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
    }

    /// Alive and not a zombie waiting to be reaped.
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0,
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        else { return false }
        return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
    }
}
