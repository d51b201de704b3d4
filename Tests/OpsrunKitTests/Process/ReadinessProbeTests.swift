import Foundation
import OpsrunKit
import Testing
@testable import OpsrunEngine
@testable import OpsrunProcess

#if canImport(Glibc)
    import Glibc
#endif

/// A service's `ready` probe (docs/manual/ci.md): one that cannot run fails the service at once;
/// past `ready_timeout`, the failure says how the last probe ended and what it last wrote.
@Suite struct ReadinessProbeTests {
    func service(ready probe: String, timeoutMilliseconds: Int) -> CommandJob {
        var job = makeJob(1, ["exec sleep 60"])
        job.taskName = "db"
        job.service = ServiceReadiness(probe: probe, timeoutMilliseconds: timeoutMilliseconds)
        return job
    }

    @Test func aProbeThatIsNotFoundFailsTheServiceWithoutWaitingForItsTimeout() {
        let driver = RunnerDriver(graceMilliseconds: 2000)
        defer { driver.runner.shutdown() }
        // Ten minutes: the test's own deadline (a minute) passes long before.
        driver.start(service(ready: "no-such-probe --ready", timeoutMilliseconds: 600_000))
        driver.run()
        let result = driver.logs[1]?.result
        #expect(result?.serviceFailure == .probeCannotRun(
            ProbeEnd(termination: .exited(127), lastLine: "db: 1: no-such-probe: not found")))
        #expect(result?.timedOut == false)
        #expect(driver.logs[1]?.readyCount == 0)
    }

    @Test func aServiceNotReadyInTimeKeepsItsLastProbesStatusAndLastLine() {
        let driver = RunnerDriver(graceMilliseconds: 2000)
        defer { driver.runner.shutdown() }
        driver.start(service(ready: "echo out; printf 'first\\nlast line\\n\\n' >&2; exit 3", timeoutMilliseconds: 300))
        driver.run()
        let result = driver.logs[1]?.result
        #expect(result?.serviceFailure == .notReady(
            afterMilliseconds: 300, lastProbe: ProbeEnd(termination: .exited(3), lastLine: "last line")))
        // The probe's output is its own, not the service's.
        #expect(driver.logs[1]?.outputText == "")
    }

    /// opsrun did not run past the deadline (stopped with SIGSTOP from elsewhere outside its wait,
    /// or starved): the probes that failed ran before the service could be ready, so one more
    /// decides (CI found this race in the end-to-end test of a stopped opsrun).
    @Test func aServiceReadyWhileTheRunnerDidNotRunGetsOneLastProbe() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver(graceMilliseconds: 2000)
        defer { driver.runner.shutdown() }
        var job = makeJob(1, ["while [ ! -f probed ]; do sleep 0.01; done; echo probed; exec sleep 60"], directory: directory)
        job.taskName = "db"
        job.service = ServiceReadiness(probe: "test -f ready || { touch probed; false; }", timeoutMilliseconds: 1000)
        driver.start(job)
        driver.run { $0.logs[1]?.outputText == "probed\n" || $0.logs[1]?.result != nil }
        #expect(driver.logs[1]?.result == nil)
        FileManager.default.createFile(atPath: directory + "/ready", contents: nil)
        // The runner is not asked for events past the deadline and the last probe's age: this
        // wait is the test.
        usleep(3_500_000)
        driver.run { $0.logs[1]?.readyCount == 1 || $0.logs[1]?.result != nil }
        #expect(driver.logs[1]?.readyCount == 1)
        #expect(driver.logs[1]?.result == nil)
    }

    @Test func theLastLineIsStandardErrorsElseStandardOutputsCutAtItsStart() {
        #expect(ProcessRunner.lastLine(error: Array("a\r\n  b  \r\n\n".utf8), output: Array("c\n".utf8)) == "b")
        #expect(ProcessRunner.lastLine(error: Array(" \n".utf8), output: Array("c\nd".utf8)) == "d")
        #expect(ProcessRunner.lastLine(error: [], output: []) == "")
        let long = String(repeating: "x", count: 300) + "end"
        let cut = ProcessRunner.lastLine(error: Array(long.utf8), output: [])
        #expect(cut.count == ProcessRunner.probeLineCharacters && cut.hasPrefix("…") && cut.hasSuffix("xend"))
    }
}
