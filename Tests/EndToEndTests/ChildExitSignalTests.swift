import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// How opsrun learns that a command exited: SIGCHLD, blocked in `main` before any thread exists
/// and read from the runner's signalfd, then `wait4(-1)` until nothing more has exited
/// (`ProcessRunner.ChildExitNotice.signal`).
///
/// Tested through the binary: the test process cannot run a runner that way. Its threads do not
/// all block SIGCHLD, `wait4(-1)` would reap other tests' children, and even a copy of the test
/// binary started with SIGCHLD blocked loses the signal: the testing library's main thread waits
/// in `dispatch_main`'s `sigsuspend` with an empty mask, takes each SIGCHLD and discards it.
@Suite struct ChildExitSignalTests {
    /// Twenty commands exit while opsrun is stopped: their exits leave one SIGCHLD pending, and
    /// the one read of it must account for every command.
    @Test func exitsThatArriveAsOneSignalAreEachReported() throws {
        let count = 20
        let gate = try Gate()
        var manifest = "default: all\ntasks:\n"
        for i in 1...count {
            manifest += "  t\(i): echo $$ > t\(i).pid; \(gate.wait); echo out\(i); exit \(i % 4)\n"
        }
        manifest += "  all: { deps: [\((1...count).map { "t\($0)" }.joined(separator: ", "))] }\n"
        let project = try TemporaryProject(manifest)
        let running = try project.start("-j", "\(count)", "-k", "--report", "run.json")
        defer { running.stopIfRunning() }
        let pids = try (1...count).map { i in
            try #require(ProcessProbe.pid(writtenTo: project.path("t\(i).pid")), "t\(i) never started")
        }
        // The binary runs that way: SIGCHLD blocked, and no pidfd for its twenty commands.
        let opsrun = running.pid
        let blocked = try #require(ProcessProbe.blockedSignals(of: opsrun))
        #expect(blocked & (1 << UInt64(SIGCHLD - 1)) != 0, "opsrun does not block SIGCHLD")
        #expect(ProcessProbe.descriptorTargets(of: opsrun).filter { $0.contains("pidfd") } == [])

        kill(opsrun, SIGSTOP)
        // Whatever the test finds, opsrun goes on.
        defer { kill(opsrun, SIGCONT) }
        try #require(waitUntil("opsrun to stop") { ProcessProbe.state(of: opsrun) == "T" })
        gate.release(count)
        try #require(waitUntil("every command to exit") { pids.allSatisfy { ProcessProbe.state(of: $0) == "Z" } })
        kill(opsrun, SIGCONT)

        let result = running.wait()
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: project.path("run.json")))
        let report = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tasks = try #require(report["tasks"] as? [[String: Any]])
        for i in 1...count {
            let task = try #require(tasks.first { $0["name"] as? String == "t\(i)" }, "t\(i)")
            #expect(task["exit_status"] as? Int == i % 4, "t\(i)")
            #expect(task["state"] as? String == (i % 4 == 0 ? "succeeded" : "failed"), "t\(i)")
            #expect(squeezed(result.stdout).contains("t\(i) | out\(i)\n"), "t\(i)")
        }
    }
}
