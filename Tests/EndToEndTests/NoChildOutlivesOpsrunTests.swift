import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/running.md: "No child process outlives `opsrun`", even one that left its task's process group.
@Suite struct NoChildOutlivesOpsrunTests {
    /// The task ends once the escaped process has left its group and said so (else, still in
    /// the group when the task's shell exits, it would be terminated with the group's leftovers).
    static let escape = """
          escape:
            timeout: 10s
            run: >-
              setsid sh -c 'trap "" TERM; echo $$ > left.pid; while true; do sleep 0.05; done' &
              while [ ! -s left.pid ]; do sleep 0.01; done
        """

    @Test func processThatLeftItsTaskGroupDoesNotOutliveTheRun() throws {
        let project = try TemporaryProject("""
            tasks:
            \(Self.escape)
            """)
        let running = try OpsrunBinary.start(["--grace", "500ms", "escape"], in: project.url)
        defer { running.stopIfRunning() }
        let left = try #require(ProcessProbe.pid(writtenTo: project.path("left.pid")), "the task never ran")
        defer { kill(left, SIGKILL) }
        let result = running.wait()
        #expect(result.status == 0)
        #expect(ProcessProbe.isGone(left), "process \(left), which left its task's group, outlived opsrun")
    }

    /// SIGTERM, the grace period, then SIGKILL, as for a task's process group.
    @Test func processThatLeftItsTaskGroupAndTrapsTermDoesNotOutliveAnInterrupt() throws {
        let project = try TemporaryProject("""
            tasks:
            \(Self.escape)
              busy: echo $$ > busy.pid; sleep 60
              all: { deps: [escape, busy] }
            """)
        let running = try OpsrunBinary.start(["-j", "2", "--grace", "500ms", "all"], in: project.url)
        defer { running.stopIfRunning() }
        let left = try #require(ProcessProbe.pid(writtenTo: project.path("left.pid")), "escape never ran")
        defer { kill(left, SIGKILL) }
        let busy = try #require(ProcessProbe.pid(writtenTo: project.path("busy.pid")), "busy never ran")
        kill(running.pid, SIGINT)
        let result = running.wait()
        #expect(result.status == 130)
        #expect(ProcessProbe.isGone(left), "process \(left), which left its task's group, outlived opsrun")
        #expect(ProcessProbe.isGone(busy))
    }

    /// Every task has ended, and opsrun waits out the grace period of a process that left its
    /// task's group and ignores SIGTERM: a Ctrl-C then kills it at once, and the run ends
    /// interrupted, never with exit 0 (found by an adversarial probe: exit 0, no trace of it).
    @Test func anInterruptWhileWaitingForALeftoverProcessEndsTheRunInterrupted() throws {
        let project = try TemporaryProject("""
            tasks:
              escape:
                run: >-
                  setsid sh -c 'trap "echo term > term.txt" TERM; echo $$ > left.pid; while true; do sleep 0.05; done' &
                  while [ ! -s left.pid ]; do sleep 0.01; done
            """)
        let running = try OpsrunBinary.start(["--grace", "20s", "escape"], in: project.url)
        defer { running.stopIfRunning() }
        let left = try #require(ProcessProbe.pid(writtenTo: project.path("left.pid")), "the task never ran")
        defer { kill(left, SIGKILL) }
        // Its SIGTERM came once every task had ended: opsrun now waits out the grace period.
        try #require(waitUntil("the leftover process got its SIGTERM") { FileManager.default.fileExists(atPath: project.path("term.txt")) })
        kill(running.pid, SIGINT)
        let result = running.wait()
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("INTERRUPTED by SIGINT"), "\(result.stdout)")
        #expect(ProcessProbe.isGone(left), "process \(left), which left its task's group, outlived opsrun")
    }

    /// Nothing of opsrun is left to stop the tasks; the kernel sends its children SIGKILL.
    @Test func killingOpsrunWithSigkillLeavesNoDirectChildRunning() throws {
        let project = try TemporaryProject("""
            tasks:
              busy: echo $$ > busy.pid; sleep 60
            """)
        let running = try OpsrunBinary.start(["busy"], in: project.url)
        defer { running.stopIfRunning() }
        let shell = try #require(ProcessProbe.pid(writtenTo: project.path("busy.pid")), "the task never ran")
        // Its `sleep`, a grandchild, is out of reach once opsrun is gone: not this test's subject.
        defer { kill(-shell, SIGKILL) }
        kill(running.pid, SIGKILL)
        running.wait()
        #expect(ProcessProbe.isGone(shell), "the task's shell \(shell) outlived opsrun")
    }
}
