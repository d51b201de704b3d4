import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A terminal or SSH session that goes away: opsrun stops the run as on Ctrl-C (docs/manual/running.md,
/// "Interrupting"), unless it runs under `nohup`.
@Suite struct HangUpTests {
    @Test func closingTheTerminalTerminatesEveryTask() throws {
        let project = try TemporaryProject("""
            tasks:
              first: sh -c 'echo $$ > first.pid; sleep 60'
              second: sh -c 'echo $$ > second.pid; sleep 60'
              both: { deps: [first, second] }
            """)
        let terminal = try OpsrunOnTerminal(["-j", "2", "--grace", "500ms", "both"], in: project.url)
        let pids = try ["first.pid", "second.pid"].map { file in
            try #require(ProcessProbe.pid(writtenTo: project.path(file)), "\(file) never written")
        }
        defer { for pid in pids { kill(pid, SIGKILL) } }
        terminal.hangUp()
        #expect(terminal.waitForExit() == 129)
        for pid in pids {
            #expect(ProcessProbe.isGone(pid), "task process \(pid) outlived opsrun")
        }
    }

    @Test func nohupKeepsTheRunGoingThroughAHangup() throws {
        let project = try TemporaryProject("""
            tasks:
              wait-for-go: sh -c 'echo $$ > started.pid; while [ ! -e go ]; do sleep 0.02; done; touch done'
            """)
        let running = try OpsrunBinary.start(["wait-for-go"], in: project.url, launcher: ["/usr/bin/nohup"])
        defer { running.stopIfRunning() }
        _ = try #require(ProcessProbe.pid(writtenTo: project.path("started.pid")), "the task never started")
        // Queued before the task can end: were it taken, the run would stop with 129.
        kill(running.pid, SIGHUP)
        FileManager.default.createFile(atPath: project.path("go"), contents: nil)
        let result = running.wait()
        #expect(result.status == 0, "\(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: project.path("done")))
    }
}
