import OpsrunKit
import Testing
@testable import OpsrunEngine

@Suite struct FailurePolicyTests {
    @Test func failedPrerequisiteCancelsDependentsWithDirectAndIndirectCauses() {
        let runner = FakeRunner()
        runner.terminations = ["compile": [.exited(2)]]
        let run = runEngine(
            [
                op("compile"), op("link", ["compile"]), op("package", ["link"]),
                op("test", ["compile", "link"]), op("docs"),
            ],
            keepGoing: true, runner: runner)
        #expect(runner.startOrder == ["compile", "docs"])
        #expect(run.state("compile") == .finished(.failed))
        #expect(run.state("link") == .cancelled(.prerequisiteFailed(prerequisite: 0)))
        #expect(
            run.state("package") == .cancelled(.prerequisiteCancelled(prerequisite: 1, root: 0)))
        // Reached directly and through 'link': the nearest path names it.
        #expect(run.state("test") == .cancelled(.prerequisiteFailed(prerequisite: 0)))
        #expect(run.state("docs") == .finished(.succeeded))
        #expect(
            run.report.failureTrees() == [
                FailureTree(
                    failed: 0,
                    cancelled: [
                        .init(index: 1, depth: 1), .init(index: 2, depth: 2),
                        .init(index: 3, depth: 1),
                    ])
            ])
        #expect(run.report.operations[0].lastResult?.termination == .exited(2))
        #expect(run.report.exitCode == .failure)
    }

    @Test func withoutKeepGoingNothingStartsAfterAFailureAndTheRestIsNotRun() {
        let runner = FakeRunner()
        runner.terminations = ["compile": [.exited(1)]]
        runner.durations = ["slow": 3]
        let run = runEngine(
            [
                op("compile"), op("slow", priority: .high), op("link", ["compile"]), op("docs"),
                op("publish", ["docs"]),
            ],
            jobs: 2, runner: runner)
        #expect(runner.startOrder == ["slow", "compile"])
        #expect(run.state("slow") == .finished(.succeeded))
        #expect(run.state("link") == .cancelled(.prerequisiteFailed(prerequisite: 0)))
        #expect(run.state("docs") == .cancelled(.runStopped(after: 0)))
        #expect(run.state("publish") == .cancelled(.runStopped(after: 0)))
        #expect(run.recorder.events.contains(.runStopping(.failure(index: 0))))
        #expect(run.report.stoppedAfterFailure == 0)
        var counts = RunCounts()
        counts.succeeded = 1
        counts.failed = 1
        counts.cancelled = 1
        counts.notRun = 2
        #expect(run.report.counts == counts)
        #expect(run.report.exitCode == .failure)
    }

    @Test func withKeepGoingEverythingNotDependingOnAFailureRuns() {
        let runner = FakeRunner()
        runner.terminations = ["compile": [.exited(1)], "docs": [.signaled(9)]]
        let run = runEngine(
            [
                op("compile"), op("slow"), op("link", ["compile"]), op("docs"),
                op("publish", ["docs"]),
                op("lint"), op("check", ["lint", "slow"]),
            ],
            jobs: 2, keepGoing: true, runner: runner)
        #expect(runner.startOrder == ["compile", "slow", "docs", "lint", "check"])
        #expect(run.state("publish") == .cancelled(.prerequisiteFailed(prerequisite: 3)))
        #expect(run.state("check") == .finished(.succeeded))
        #expect(run.report.failures == [0, 3])
        #expect(run.report.stoppedAfterFailure == nil)
        #expect(!run.recorder.events.contains { if case .runStopping = $0 { true } else { false } })
        #expect(run.report.failureTrees().map(\.failed) == [0, 3])
    }

    @Test func retriesRunAgainInTheSameSlotUntilOneSucceeds() {
        let runner = FakeRunner()
        runner.terminations = ["flaky": [.exited(1), .signaled(15)]]
        let run = runEngine([op("flaky", retries: 2), op("other")], jobs: 1, runner: runner)
        #expect(runner.startOrder == ["flaky", "flaky", "flaky", "other"])
        #expect(run.state("flaky") == .finished(.succeeded))
        #expect(run.report.operations[0].attempts == 3)
        #expect(run.report.operations[0].startNanoseconds == 0)
        #expect(run.report.operations[0].endNanoseconds == 3)
        let retries = run.recorder.events.compactMap {
            if case .retrying(0, let next, let previous) = $0 {
                "\(next) \(previous.termination)"
            } else {
                nil
            }
        }
        #expect(retries == ["2 exited(1)", "3 signaled(15)"])
        #expect(run.report.exitCode == .success)
    }

    @Test func exhaustedRetriesFail() {
        let runner = FakeRunner()
        runner.terminations = ["flaky": [.exited(1), .exited(1), .exited(3)]]
        let run = runEngine([op("flaky", retries: 2), op("after", ["flaky"])], runner: runner)
        #expect(run.state("flaky") == .finished(.failed))
        #expect(run.report.operations[0].attempts == 3)
        #expect(run.report.operations[0].lastResult?.termination == .exited(3))
        #expect(run.state("after") == .cancelled(.prerequisiteFailed(prerequisite: 0)))
    }

    @Test func allowedFailureLetsDependentsRunAndExitsZero() {
        let runner = FakeRunner()
        runner.terminations = ["lint": [.exited(1)]]
        let run = runEngine(
            [op("lint", allowFailure: true), op("build", ["lint"]), op("docs")], runner: runner)
        #expect(runner.startOrder == ["lint", "build", "docs"])
        #expect(run.state("lint") == .finished(.failedAllowed))
        #expect(run.report.counts.failedAllowed == 1)
        #expect(run.report.counts.succeeded == 2)
        #expect(run.report.failureTrees() == [])
        #expect(run.report.exitCode == .success)
    }

    /// A task the checker says cannot run (a source it names is missing) fails as one whose command
    /// could not be spawned; allowed to fail, it lets its dependents run.
    @Test func aTaskThatCannotRunFailsWithoutStarting() {
        let operations = [op("a"), op("b", ["a"]), op("c", ["b"]), op("d", allowFailure: true), op("e", ["d"])]
        let runner = FakeRunner()
        let checker = ScriptedChecker(operations, decisions: ["b": .cannotRun("source 'x.h' does not exist"), "d": .cannotRun("no")])
        let run = runEngine(operations, keepGoing: true, runner: runner, upToDate: checker)
        #expect(runner.startOrder == ["a", "e"])
        #expect(run.state("b") == .finished(.failed))
        #expect(run.report.operations[run.index("b")].lastResult?.spawnFailure == "source 'x.h' does not exist")
        #expect(run.state("c") == .cancelled(.prerequisiteFailed(prerequisite: run.index("b"))))
        #expect(run.state("d") == .finished(.failedAllowed))
        #expect(run.state("e") == .finished(.succeeded))
        #expect(run.report.exitCode == .failure)
    }

    @Test func exitCodesLiveInOneTable() {
        #expect(ExitCode.allCases.map(\.rawValue) == [0, 1, 2, 129, 130, 131, 143])
        #expect(ExitCode.interrupted(by: SignalNumber.hangUp) == .hungUp)
        #expect(ExitCode.interrupted(by: SignalNumber.interrupt) == .interrupted)
        #expect(ExitCode.interrupted(by: SignalNumber.quit) == .quit)
        #expect(ExitCode.interrupted(by: SignalNumber.terminate) == .terminated)
    }

    /// A group runs nothing: once a failure has stopped the run, a group whose prerequisites
    /// (running at the failure) then all succeed succeeds too, and a group whose prerequisites
    /// include one that is never started stays not run; the report's task counts leave groups out.
    @Test func aGroupWhosePrerequisitesSucceedAfterTheStopSucceedsAndIsNotCounted() {
        let runner = FakeRunner()
        runner.terminations = ["fail": [.exited(1)]]
        runner.durations = ["slow": 3]
        let run = runEngine(
            [
                op("slow"), op("fail"), op("done", ["slow"], group: true), op("later", priority: .low),
                op("waits", ["slow", "later"], group: true),
            ],
            jobs: 2, runner: runner)
        #expect(runner.startOrder == ["slow", "fail"])
        #expect(run.state("done") == .finished(.succeeded))
        #expect(run.state("later") == .cancelled(.runStopped(after: 1)))
        #expect(run.state("waits") == .cancelled(.runStopped(after: 1)))
        var tasks = RunCounts()
        tasks.succeeded = 1
        tasks.failed = 1
        tasks.notRun = 1
        #expect(run.report.taskCounts(of: run.specs) == tasks)
    }
}
