import OpsrunKit
import Testing
@testable import OpsrunEngine

@Suite struct InterruptTests {
    @Test func signalTerminatesRunningJobsAndCancelsTheRest() {
        let runner = FakeRunner()
        runner.durations = ["a": 5, "b": 5]
        runner.signals = [(tick: 2, signal: SignalNumber.interrupt)]
        let run = runEngine([op("a"), op("b"), op("c", ["a"]), op("d")], jobs: 2, runner: runner)
        let interrupted = OperationState.cancelled(.interrupted(signal: 2))
        #expect(runner.terminateCalls == [false])
        #expect(runner.startOrder == ["a", "b"])
        #expect(run.report.operations.map(\.state) == Array(repeating: interrupted, count: 4))
        #expect(run.report.operations[0].lastResult?.terminatedByRequest == true)
        #expect(run.recorder.events.contains(.runStopping(.signal(2))))
        #expect(run.report.signal == 2)
        // a and b were running: interrupted; c and d never started: cancelled.
        #expect(run.report.counts.interrupted == 2 && run.report.counts.cancelled == 2)
        #expect(run.report.exitCode == .interrupted)
    }

    @Test func sigtermExitsWith143() {
        let runner = FakeRunner()
        runner.durations = ["a": 5]
        runner.signals = [(tick: 1, signal: SignalNumber.terminate)]
        let run = runEngine([op("a"), op("b", ["a"])], runner: runner)
        #expect(run.state("b") == .cancelled(.interrupted(signal: 15)))
        #expect(run.report.exitCode == .terminated)
    }

    @Test func secondSignalKillsAtOnce() {
        let runner = FakeRunner()
        runner.durations = ["stubborn": 100]
        runner.ignoresTermination = ["stubborn"]
        runner.signals = [
            (tick: 1, signal: SignalNumber.interrupt), (tick: 4, signal: SignalNumber.interrupt),
        ]
        let run = runEngine([op("stubborn")], runner: runner)
        #expect(runner.terminateCalls == [false, true])
        #expect(run.report.operations[0].lastResult?.termination == .signaled(9))
        #expect(run.state("stubborn") == .cancelled(.interrupted(signal: 2)))
        #expect(run.report.operations[0].endNanoseconds == 4)
    }

    @Test func interruptedJobIsNotRetriedAndAFinishedSuccessStands() {
        let runner = FakeRunner()
        runner.durations = ["flaky": 3, "finisher": 3]
        runner.ignoresTermination = ["finisher"]
        runner.signals = [(tick: 1, signal: SignalNumber.interrupt)]
        let run = runEngine([op("flaky", retries: 3), op("finisher")], jobs: 2, runner: runner)
        #expect(runner.startOrder == ["flaky", "finisher"])
        #expect(run.state("flaky") == .cancelled(.interrupted(signal: 2)))
        #expect(run.state("finisher") == .finished(.succeeded))
        #expect(run.report.exitCode == .interrupted)
    }

    @Test func interruptWinsOverAnEarlierFailure() {
        let runner = FakeRunner()
        runner.terminations = ["bad": [.exited(1)]]
        runner.durations = ["slow": 5]
        runner.signals = [(tick: 2, signal: SignalNumber.interrupt)]
        let run = runEngine([op("bad"), op("slow"), op("later")], jobs: 2, runner: runner)
        #expect(run.state("bad") == .finished(.failed))
        #expect(run.state("slow") == .cancelled(.interrupted(signal: 2)))
        // It was already not going to run: the first reason the run stopped stands.
        #expect(run.state("later") == .cancelled(.runStopped(after: 0)))
        #expect(run.report.exitCode == .interrupted)
    }

    /// Nothing starts after the decision that saw the signal coming: the engine takes the signal
    /// from the runner first, even with nothing executing.
    @Test func aSignalSeenWhileDecidingStartsNothingMore() {
        let operations = [op("a"), op("b", ["a"]), op("c", ["b"]), op("d", ["a"])]
        let runner = FakeRunner()
        runner.signals = [(tick: 7, signal: SignalNumber.interrupt)]
        let checker = ScriptedChecker(operations, decisions: ["b": .interrupted])
        let run = runEngine(operations, runner: runner, upToDate: checker)
        #expect(runner.startOrder == ["a"])
        #expect(checker.decided == ["a", "b"])
        #expect(checker.interruptions == 1)
        #expect(run.state("a") == .finished(.succeeded))
        for name in ["b", "c", "d"] { #expect(run.state(name) == .cancelled(.interrupted(signal: 2))) }
        #expect(run.report.exitCode == .interrupted)
    }
}

/// docs/manual/running.md, "Suspending": Ctrl-Z suspends the run as a suspended `OperationQueue`.
@Suite struct SuspendEngineTests {
    @Test func ctrlZSuspendsTheRunnerOnceWithTheRunningTasksAndTheRunGoesOn() {
        let runner = FakeRunner()
        runner.durations = ["a": 5, "b": 5, "c": 1]
        runner.suspensions = [2]
        let run = runEngine([op("a"), op("b"), op("c", ["a"])], jobs: 2, runner: runner)
        #expect(runner.suspendedWhile == [["a", "b"]])
        let around = run.recorder.events.filter { $0 == .runSuspending || $0 == .runContinued }
        #expect(around == [.runSuspending, .runContinued])
        #expect(run.report.operations.map(\.state) == Array(repeating: .finished(.succeeded), count: 3))
        #expect(run.report.exitCode == .success)
    }
}
