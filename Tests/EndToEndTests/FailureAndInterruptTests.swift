import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/running.md, "When a task fails" and "Interrupting", through the real binary.
@Suite struct FailureAndInterruptTests {
    @Test func failedPrerequisiteCancelsEverythingDownstreamAndTheRunStops() throws {
        let result = try OpsrunBinary.run([], in: OpsrunBinary.examples.appendingPathComponent("failing"))
        #expect(result.status == 1)
        let summary = squeezed(result.stdout)
        #expect(summary.contains("FAILED compile exit 2 after"))
        #expect(summary.contains("\n cancelled link prerequisite 'compile' failed\n"))
        #expect(summary.contains("\n cancelled package prerequisite 'link' was cancelled (compile)\n"))
        #expect(summary.contains("NOT RUN docs the run stopped after 'compile' failed (use -k to keep going)"))
        #expect(!result.stdout.contains("| link") && !result.stdout.contains("| package"))
    }

    @Test func keepGoingRunsEverythingThatDoesNotDependOnTheFailure() throws {
        // `slow` is still running when `broken` fails: it waits at the gate, opened only once
        // opsrun has reported the failure.
        let gate = try Gate()
        let project = try TemporaryProject("""
            default: all
            tasks:
              broken: { run: exit 1 }
              after-broken: { deps: [broken], run: touch after-broken }
              slow: { run: \(gate.wait) }
              independent: { deps: [slow], run: touch independent }
              all: { deps: [after-broken, independent] }
            """)
        let stopping = try project.start("-j", "2")
        stopping.waitForOutput(containing: "✗ broken")
        gate.release()
        let stopped = stopping.wait()
        #expect(stopped.status == 1)
        #expect(stopped.stdout.contains("✓ slow"), "\(stopped.stdout)")
        #expect(!FileManager.default.fileExists(atPath: project.path("independent")))
        let keepingGoing = try project.start("-j", "2", "-k")
        keepingGoing.waitForOutput(containing: "✗ broken")
        gate.release()
        let kept = keepingGoing.wait()
        #expect(kept.status == 1)
        #expect(FileManager.default.fileExists(atPath: project.path("independent")))
        #expect(!FileManager.default.fileExists(atPath: project.path("after-broken")))
    }

    /// SIGHUP (the terminal or SSH session closed) and SIGQUIT interrupt like SIGINT: opsrun
    /// exits 128 + the signal, as a shell reports a command the signal killed.
    @Test(arguments: [
        (SIGINT, Int32(130), "SIGINT"), (SIGTERM, Int32(143), "SIGTERM"), (SIGHUP, Int32(129), "SIGHUP"),
        (SIGQUIT, Int32(131), "SIGQUIT"),
    ])
    func interruptTerminatesEveryProcessIncludingGrandchildrenThatTrapTerm(
        signal: Int32, status: Int32, name: String
    ) throws {
        let project = try TemporaryProject("""
            default: all
            tasks:
              stubborn:
                run: sh -c 'trap "" TERM; echo $$ > grandchild.pid; while true; do sleep 0.05; done'
              plain:
                run: sh -c 'echo $$ > plain.pid; sleep 60'
              never: { deps: [stubborn], run: touch never-ran }
              all: { deps: [never, plain] }
            """)
        let running = try OpsrunBinary.start(["-j", "2", "--grace", "500ms"], in: project.url)
        defer { running.stopIfRunning() }
        // Both tasks are running (and `stubborn` ignores SIGTERM) once each has written its pid.
        let pids = try ["grandchild.pid", "plain.pid"].map { file in
            try #require(ProcessProbe.pid(writtenTo: project.path(file)), "\(file) never written")
        }
        defer { for pid in pids { kill(pid, SIGKILL) } }
        kill(running.pid, signal)
        let result = running.wait()
        #expect(result.status == status)
        for pid in pids {
            #expect(!ProcessProbe.isAlive(pid), "process \(pid) outlived opsrun")
        }
        #expect(!FileManager.default.fileExists(atPath: project.path("never-ran")))
        #expect(squeezed(result.stdout).contains("interrupted stubborn interrupted by \(name)\n"))
        #expect(squeezed(result.stdout).contains("INTERRUPTED by \(name)\n"))
    }

    @Test func secondInterruptKillsAtOnce() throws {
        // The task's shell survives SIGTERM and says it got it (`terminated`): opsrun has then
        // taken the first interrupt, and the second is sent. (It writes nothing where opsrun
        // reads: once its group's leader is gone, a write there would end it with SIGPIPE.)
        let project = try TemporaryProject("""
            tasks:
              stubborn: sh -c 'exec > /dev/null 2>&1; trap "touch terminated" TERM; echo $$ > pid; while true; do sleep 1; done'
            """)
        let running = try OpsrunBinary.start(["stubborn", "--grace", "30s"], in: project.url)
        defer { running.stopIfRunning() }
        let pid = try #require(ProcessProbe.pid(writtenTo: project.path("pid")), "the task never started")
        defer { kill(pid, SIGKILL) }
        kill(running.pid, SIGINT)
        try #require(waitUntil("the task to get SIGTERM") { FileManager.default.fileExists(atPath: project.path("terminated")) })
        let second = Date()
        kill(running.pid, SIGINT)
        let result = running.wait()
        #expect(result.status == 130)
        // Well before the 30 s grace period would have ended.
        #expect(Date().timeIntervalSince(second) < 10)
        #expect(ProcessProbe.isGone(pid), "the task's shell \(pid) outlived opsrun")
    }
}
