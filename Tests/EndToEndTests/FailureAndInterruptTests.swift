import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §4, "When a task fails" and "Interrupting", through the real binary.
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
        let project = try TemporaryProject("""
            default: all
            tasks:
              broken: { run: exit 1 }
              after-broken: { deps: [broken], run: touch after-broken }
              slow: { run: sleep 0.3 }
              independent: { deps: [slow], run: touch independent }
              all: { deps: [after-broken, independent] }
            """)
        let stopped = try project.run("-j", "2")
        #expect(stopped.status == 1)
        #expect(!FileManager.default.fileExists(atPath: project.path("independent")))
        let kept = try project.run("-j", "2", "-k")
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
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && !(FileManager.default.fileExists(atPath: project.path("grandchild.pid"))
            && FileManager.default.fileExists(atPath: project.path("plain.pid")))
        {
            usleep(20_000)
        }
        usleep(50_000)
        kill(running.pid, signal)
        let result = running.wait(seconds: 15)
        #expect(result.status == status)
        for file in ["grandchild.pid", "plain.pid"] {
            let pid = try #require(Int32(String(contentsOfFile: project.path(file), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(!ProcessProbe.isAlive(pid), "\(file): process \(pid) outlived opsrun")
        }
        #expect(!FileManager.default.fileExists(atPath: project.path("never-ran")))
        #expect(squeezed(result.stdout).contains("cancelled stubborn interrupted by \(name)\n"))
        #expect(squeezed(result.stdout).contains("INTERRUPTED by \(name)\n"))
    }

    @Test func secondInterruptKillsAtOnce() throws {
        let project = try TemporaryProject("""
            tasks:
              stubborn: sh -c 'trap "" TERM; echo $$ > pid; while true; do sleep 0.05; done'
            """)
        let running = try OpsrunBinary.start(["stubborn", "--grace", "30s"], in: project.url)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && !FileManager.default.fileExists(atPath: project.path("pid")) { usleep(20_000) }
        usleep(50_000)
        let started = Date()
        kill(running.pid, SIGINT)
        usleep(200_000)
        kill(running.pid, SIGINT)
        let result = running.wait(seconds: 15)
        #expect(result.status == 130)
        #expect(Date().timeIntervalSince(started) < 10)
    }
}
