import Foundation
import OpsrunKit
import Testing
@testable import OpsrunEngine

@Suite struct ProcessTerminationTests {
    @Test func timeoutTerminatesTheJobLongBeforeItsSleepEnds() {
        let driver = RunnerDriver(graceMilliseconds: 1000)
        let log = driver.runJob(makeJob(["sleep 30"], timeoutMilliseconds: 200))
        let result = log.result!
        #expect(result.timedOut)
        #expect(!result.terminatedByRequest)
        #expect(result.termination == Termination.signaled(SIGTERM))
        #expect(!result.succeeded)
        #expect(result.endNanoseconds - result.startNanoseconds < 10_000_000_000)
    }

    @Test func aTimedOutJobsSurvivorWritesNothingIntoItsOutputOnceTheShellHasExited() {
        let driver = RunnerDriver(graceMilliseconds: 3000)
        // The member ignores SIGTERM and writes after its shell is gone. Its pipes were closed when
        // the shell exited, as after any leftover, so the write is not the job's output (it gets
        // EPIPE, and SIGPIPE ends it; otherwise the grace period's SIGKILL would).
        let survivor = "sh -c 'trap \"\" TERM; sleep 1; echo late; sleep 60; true' &"
        let log = driver.runJob(makeJob(["\(survivor) echo early; sleep 30"], timeoutMilliseconds: 300))
        #expect(log.result?.timedOut == true)
        #expect(log.outputText == "early\n")
    }

    @Test func timeoutCoversTheWholeAttemptNotEachCommand() {
        let driver = RunnerDriver(graceMilliseconds: 1000)
        let log = driver.runJob(
            makeJob(["sleep 0.1", "sleep 0.1", "sleep 30"], timeoutMilliseconds: 600))
        #expect(log.result?.timedOut == true)
        #expect(log.result?.commandIndex == 2)
        #expect(log.commandsStarted == [0, 1, 2])
    }

    @Test func terminateRightAfterStartReachesACommandStillSettingUp() {
        // `start` returns before the child has made its process group; SIGTERM sent then must
        // still end it at once, not only after the grace period's SIGKILL.
        let driver = RunnerDriver(graceMilliseconds: 60_000)
        for id in 1...20 {
            driver.start(makeJob(id, ["sleep 30"]))
            driver.runner.terminateAll(immediately: false)
            driver.run()
            let result = driver.logs[id]?.result
            #expect(result?.termination == Termination.signaled(SIGTERM))
            #expect(result.map { $0.endNanoseconds - $0.startNanoseconds < 10_000_000_000 } == true)
        }
    }

    @Test func terminateAllKillsAGrandchildThatTrapsTerm() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver(graceMilliseconds: 300)
        // The inner shell ignores SIGTERM (and so does its sleep); `; true` keeps dash from
        // exec'ing sleep in its place, so the recorded pid stays the process to watch.
        let grandchild = "sh -c 'trap \"\" TERM; echo $$ > grandchild; echo ready; sleep 60; true'"
        driver.start(makeJob(["echo $$ > leader; \(grandchild) & wait"], directory: directory))
        driver.run { $0.logs[1]!.outputText.contains("ready") }
        driver.runner.terminateAll(immediately: false)
        driver.run()
        let result = driver.logs[1]!.result!
        #expect(result.terminatedByRequest)
        #expect(!result.timedOut)
        #expect(result.termination == .signaled(SIGTERM))
        let leader = readPid(directory + "/leader")!
        let grandchildPid = readPid(directory + "/grandchild")!
        // Killed before `.finished` was reported, not merely on its way.
        #expect(!isRunning(grandchildPid))
        #expect(!isRunning(leader))
        #expect(runningMembers(ofGroup: leader) == [])
    }

    @Test func terminateAllImmediatelyKillsAtOnce() {
        let driver = RunnerDriver(graceMilliseconds: 60_000)
        driver.start(makeJob(1, ["trap '' TERM; echo ready; sleep 60; true"]))
        driver.start(makeJob(2, ["sleep 60"]))
        driver.run { $0.logs[1]!.outputText.contains("ready") }
        driver.runner.terminateAll(immediately: true)
        driver.run()
        #expect(driver.logs[1]?.result?.termination == .signaled(SIGKILL))
        #expect(driver.logs[2]?.result?.termination == .signaled(SIGKILL))
        #expect(driver.logs[1]?.result?.terminatedByRequest == true)
    }

    @Test func backgroundLeftoverIsTerminatedWhenTheCommandEnds() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver(graceMilliseconds: 300)
        // The leftover sleep holds the stdout pipe open: the job must end without its EOF.
        let log = driver.runJob(
            makeJob(["sleep 60 & echo $! > leftover; echo done"], directory: directory))
        #expect(log.result?.termination == .exited(0))
        #expect(log.outputText == "done\n")
        let leftover = readPid(directory + "/leftover")!
        #expect(waitUntilGone(leftover))
    }

    @Test func aLeftoverStillWritingNeverReachesTheNextJobsOutput() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver(graceMilliseconds: 60_000)
        // The leftover ignores SIGTERM and outlives its command; its pipes must not be lent on.
        let stubborn = "sh -c 'trap \"\" TERM; sleep 0.3; echo late; echo late >&2; sleep 60' &"
        let first = driver.runJob(makeJob(1, ["\(stubborn) echo one"], directory: directory))
        #expect(first.outputText == "one\n")
        let second = driver.runJob(makeJob(2, ["sleep 0.8; echo two"], directory: directory))
        #expect(second.outputText == "two\n")
        #expect(second.errorText == "")
        driver.runner.shutdown()
    }

    @Test func shutdownKillsLeftoversThatIgnoreTerm() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver(graceMilliseconds: 60_000)
        let stubborn = "sh -c 'trap \"\" TERM; echo $$ > leftover; sleep 60; true' &"
        let log = driver.runJob(
            makeJob(["\(stubborn) while [ ! -s leftover ]; do sleep 0.01; done"], directory: directory))
        #expect(log.result?.termination == .exited(0))
        let leftover = readPid(directory + "/leftover")!
        #expect(isRunning(leftover))
        driver.runner.shutdown()
        #expect(waitUntilGone(leftover))
    }

    @Test func shutdownKillsRunningJobs() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver()
        driver.start(makeJob(["echo $$ > leader; echo ready; sleep 60"], directory: directory))
        driver.run { $0.logs[1]!.outputText.contains("ready") }
        let leader = readPid(directory + "/leader")!
        driver.runner.shutdown()
        // shutdown reaps what it spawned: the leader is not even a zombie.
        #expect(kill(leader, 0) == -1 && errno == ESRCH)
    }

    /// Running (non-zombie) processes whose process group is `group`, read from /proc.
    private func runningMembers(ofGroup group: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && pid_t(fields[2]) == group && isRunning(pid)
        }
    }
}
