import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// opsrun stopped with SIGSTOP from elsewhere (a debugger, a paused container) and continued: its
/// tasks ran meanwhile, so nothing is postponed for them, but nothing that ended in time may be
/// taken for late either (docs/manual/running.md, "Suspending").
@Suite struct StoppedFromElsewhereTests {
    /// The task ended within its timeout while opsrun was stopped; opsrun, continued after the
    /// deadline, read the deadline before the exit and said "timed out" (found by an adversarial
    /// probe).
    @Test func aTaskThatEndedInTimeWhileOpsrunWasStoppedSucceeds() throws {
        let project = try TemporaryProject("""
            tasks:
              b:
                timeout: 2s
                run: |
                  echo $$ > b.pid
                  sleep 1
                  echo done > done.txt
            """)
        let running = try OpsrunBinary.start(["b"], in: project.url)
        defer { running.stopIfRunning() }
        _ = try #require(ProcessProbe.pid(writtenTo: project.path("b.pid")), "the task never started")
        kill(running.pid, SIGSTOP)
        try #require(waitUntil("the task ended", seconds: 10) { FileManager.default.fileExists(atPath: project.path("done.txt")) })
        // Continued after the task's deadline: this wait is the test.
        usleep(2_500_000)
        kill(running.pid, SIGCONT)
        let result = running.wait()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✓ b "), "\(result.stdout)")
    }

    /// No probe could run while opsrun was stopped: the service that became ready meanwhile is
    /// probed once opsrun runs again, not failed as "not ready after 2s".
    @Test func aServiceThatBecameReadyWhileOpsrunWasStoppedIsReady() throws {
        let project = try TemporaryProject("""
            tasks:
              svc:
                service: true
                run: |
                  echo $$ > svc.pid
                  sleep 0.5
                  touch ready
                  exec sleep 30
                ready: test -f ready
                ready_timeout: 2s
              use:
                deps: [svc]
                run: echo used
            """)
        let running = try OpsrunBinary.start(["use"], in: project.url)
        defer { running.stopIfRunning() }
        _ = try #require(ProcessProbe.pid(writtenTo: project.path("svc.pid")), "the service never started")
        kill(running.pid, SIGSTOP)
        try #require(waitUntil("the service made itself ready", seconds: 10) { FileManager.default.fileExists(atPath: project.path("ready")) })
        // Continued after the service's ready_timeout: this wait is the test.
        usleep(2_500_000)
        kill(running.pid, SIGCONT)
        let result = running.wait()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("use | used"), "\(result.stdout)")
    }
}
