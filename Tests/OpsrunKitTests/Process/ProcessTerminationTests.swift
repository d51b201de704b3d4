import Foundation
import OpsrunKit
import Testing
@testable import OpsrunEngine

@Suite struct ProcessTerminationTests {
    @Test func timeoutTerminatesTheJobLongBeforeItsSleepEnds() throws {
        let driver = RunnerDriver(graceMilliseconds: 1000)
        let log = driver.runJob(makeJob(["sleep 30"], timeoutMilliseconds: 200))
        let result = try #require(log.result)
        #expect(result.timedOut)
        #expect(!result.terminatedByRequest)
        #expect(result.termination == Termination.signaled(SIGTERM))
        #expect(!result.succeeded)
        #expect(result.endNanoseconds - result.startNanoseconds < 10_000_000_000)
    }

    @Test func aTimedOutJobsSurvivorWritesNothingIntoItsOutputOnceTheShellHasExited() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver(graceMilliseconds: 60_000)
        // The member ignores SIGTERM (the shell prints `early` once it does: the timeout comes
        // long after) and writes once its shell is gone and the runner has let go of the job's
        // pipes: when no descriptor of this process is its standard output pipe any more. Should
        // the runner never let go, it writes after 1,000 rounds (10 s and more, well within the
        // grace period), its write is read as the job's output, and the test fails. Its write gets
        // EPIPE instead, SIGPIPE ends it, and with it the group.
        let survivor = """
            sh -c 'trap "" TERM; touch trapped; pipe=$(readlink /proc/$$/fd/1); n=0
            while [ $n -lt 1000 ] && ls -l /proc/$1/fd 2>/dev/null | grep -qF "$pipe"; do n=$((n + 1)); sleep 0.01; done
            echo late; echo late >&2' sh \(getpid()) &
            until [ -e trapped ]; do sleep 0.01; done
            """
        let log = driver.runJob(
            makeJob(["\(survivor); echo early; sleep 30"], directory: directory, timeoutMilliseconds: 2000))
        #expect(log.result?.timedOut == true)
        #expect(log.outputText == "early\n")
        #expect(log.errorText == "")
    }

    @Test func timeoutCoversTheWholeAttemptNotEachCommand() throws {
        // The first command takes 2 s of the 4 s; the second never ends. A timeout per command
        // would give the second 4 s of its own and end the job 6 s or more after it started; one
        // per attempt ends it 4 s after (and the test only fails if that timer is 2 s late).
        let driver = RunnerDriver(graceMilliseconds: 1000)
        let started = MonotonicDeadline.now()
        let log = driver.runJob(makeJob(["sleep 2", "sleep 30"], timeoutMilliseconds: 4000))
        let elapsed = MonotonicDeadline.now() - started
        let result = try #require(log.result)
        #expect(result.timedOut)
        #expect(result.commandIndex == 1)
        #expect(log.commandsStarted == [0, 1])
        #expect(elapsed < 6_000_000_000, "\(elapsed) ns")
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

    @Test func terminateAllKillsAGrandchildThatTrapsTerm() throws {
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
        let result = try #require(driver.logs[1]?.result)
        #expect(result.terminatedByRequest)
        #expect(!result.timedOut)
        #expect(result.termination == .signaled(SIGTERM))
        let leader = try #require(readPid(directory + "/leader"))
        let grandchildPid = try #require(readPid(directory + "/grandchild"))
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

    @Test func backgroundLeftoverIsTerminatedWhenTheCommandEnds() throws {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver(graceMilliseconds: 300)
        // The leftover sleep holds the stdout pipe open: the job must end without its EOF.
        let log = driver.runJob(
            makeJob(["sleep 60 & echo $! > leftover; echo done"], directory: directory))
        #expect(log.result?.termination == .exited(0))
        #expect(log.outputText == "done\n")
        let leftover = try #require(readPid(directory + "/leftover"))
        #expect(waitUntilGone(leftover))
    }

    @Test func aLeftoverStillWritingNeverReachesTheNextJobsOutput() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver(graceMilliseconds: 60_000)
        // The leftover ignores SIGTERM and outlives its command; its pipes must not be lent on.
        // It writes while the second job runs: once that job has made `go`, and the job ends only
        // after the writes were made (`wrote`; each write in a subshell, which SIGPIPE may end).
        // The first job ends once the leftover ignores SIGTERM (`trapped`), which it gets then.
        let stubborn = """
            sh -c 'trap "" TERM; touch trapped; until [ -e go ]; do sleep 0.01; done
            (echo late); (echo late >&2); touch wrote; sleep 60' &
            until [ -e trapped ]; do sleep 0.01; done
            """
        let first = driver.runJob(makeJob(1, ["\(stubborn); echo one"], directory: directory))
        #expect(first.outputText == "one\n")
        let second = driver.runJob(
            makeJob(2, ["touch go; until [ -e wrote ]; do sleep 0.01; done; echo two"], directory: directory))
        #expect(second.outputText == "two\n")
        #expect(second.errorText == "")
        driver.runner.shutdown()
    }

    @Test func shutdownKillsLeftoversThatIgnoreTerm() throws {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver(graceMilliseconds: 60_000)
        let stubborn = "sh -c 'trap \"\" TERM; echo $$ > leftover; sleep 60; true' &"
        let log = driver.runJob(
            makeJob(["\(stubborn) while [ ! -s leftover ]; do sleep 0.01; done"], directory: directory))
        #expect(log.result?.termination == .exited(0))
        let leftover = try #require(readPid(directory + "/leftover"))
        #expect(isRunning(leftover))
        driver.runner.shutdown()
        #expect(waitUntilGone(leftover))
    }

    @Test func shutdownKillsRunningJobs() throws {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver()
        driver.start(makeJob(["echo $$ > leader; echo ready; sleep 60"], directory: directory))
        driver.run { $0.logs[1]!.outputText.contains("ready") }
        let leader = try #require(readPid(directory + "/leader"))
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
