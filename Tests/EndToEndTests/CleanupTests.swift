import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/ci.md, `cleanup:`: after a task's `run`, whatever its result, never changing it.
@Suite struct CleanupTests {
    @Test func cleanupRunsAfterSuccessAndFailureUnderTheTasksName() throws {
        let project = try TemporaryProject(
            """
            tasks:
              good:
                run: echo working
                cleanup: [echo cleaning $OPSRUN_TASK, touch good.cleaned]
              bad:
                run: [echo failing, exit 3, echo never]
                cleanup: touch bad.cleaned
            """)
        let result = try project.run("-k", "good", "bad")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let good = result.stdout.split(separator: "\n").filter { $0.hasPrefix("good |") }
        #expect(good == ["good | working", "good | cleaning good"])
        #expect(result.stdout.contains("FAILED   bad       exit 3 after"))
        #expect(FileManager.default.fileExists(atPath: project.path("good.cleaned")))
        #expect(FileManager.default.fileExists(atPath: project.path("bad.cleaned")))
        #expect(!result.stdout.contains("never"))
    }

    @Test func aFailingCleanupIsAWarningAndTheResultStands() throws {
        let project = try TemporaryProject(
            """
            tasks:
              build:
                run: echo built
                cleanup: [exit 4, touch not-reached]
            """)
        let result = try project.run("build")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("⚠ build cleanup failed: exit 4"))
        #expect(result.stdout.contains("WARNING  build     cleanup failed: exit 4 (the task's result stands)"))
        #expect(result.stdout.contains("1 succeeded"))
        #expect(!FileManager.default.fileExists(atPath: project.path("not-reached")))
    }

    @Test func cleanupRunsAfterATimeout() throws {
        let project = try TemporaryProject(
            """
            tasks:
              slow:
                run: exec sleep 30
                timeout: 200ms
                cleanup: touch cleaned
            """)
        let result = try project.run("slow")
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAILED   slow      timed out after 200ms"))
        #expect(FileManager.default.fileExists(atPath: project.path("cleaned")))
    }

    @Test func onAnInterruptCleanupRunsAndIsBoundedByTheGrace() throws {
        // The first task's cleanup finishes within the grace; the second's would take 60 s and
        // is killed when the grace of 1 s runs out.
        let project = try TemporaryProject(
            """
            tasks:
              quick:
                run: touch quick.started; exec sleep 60
                cleanup: touch quick.cleaned
              stuck:
                run: touch stuck.started; exec sleep 60
                cleanup: echo $$ > stuck.cleanup.pid; exec sleep 60
              both:
                deps: [quick, stuck]
            """)
        let running = try project.start("-j", "2", "--grace", "1s", "both")
        try #require(waitUntil("both tasks to start") {
            FileManager.default.fileExists(atPath: project.path("quick.started"))
                && FileManager.default.fileExists(atPath: project.path("stuck.started"))
        })
        kill(running.pid, SIGINT)
        let result = running.wait()
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: project.path("quick.cleaned")))
        let pid = try #require(ProcessProbe.pid(writtenTo: project.path("stuck.cleanup.pid")))
        #expect(ProcessProbe.isGone(pid))
        #expect(result.stdout.contains("WARNING  stuck     cleanup failed: killed by SIGKILL (the task's result stands)"))
    }

    /// Issue 28, item 11: a task that ignores SIGTERM is killed when the grace period runs out;
    /// its cleanup still runs, within a grace period of its own.
    @Test func onAnInterruptATaskKilledAfterTheGraceStillGetsItsCleanup() throws {
        let project = try TemporaryProject(
            """
            tasks:
              stubborn:
                run: trap '' TERM; touch started; while true; do sleep 0.05; done
                cleanup: touch cleaned
            """)
        let running = try project.start("--grace", "300ms", "stubborn")
        try #require(waitUntil("the task to start") { FileManager.default.fileExists(atPath: project.path("started")) })
        kill(running.pid, SIGINT)
        let result = running.wait()
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: project.path("cleaned")))
    }

    @Test func cleanupWithoutRunIsAnError() throws {
        let project = try TemporaryProject(
            """
            tasks:
              a: echo a
              tidy:
                deps: [a]
                cleanup: rm -rf tmp
              b:
                run: echo b
                clean_up: rm -rf tmp
            """)
        let result = try project.run("-n")
        #expect(result.status == 2)
        #expect(result.stderr.contains("Tasksfile.yaml:5:14: error: task 'tidy' has 'cleanup' but no 'run': a cleanup runs after the task's commands"))
        #expect(result.stderr.contains("Tasksfile.yaml:8:5: error: unknown key 'clean_up' in task 'b'; did you mean 'cleanup'?"))
    }
}
