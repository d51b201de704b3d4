import OpsrunKit
import Testing
@testable import OpsrunEngine

/// docs/manual/ci.md in the engine, in the fake runner's virtual time.
@Suite struct ServiceEngineTests {
    @Test func aReadyServiceHoldsNoSlotSoOneJobRunsItsDependents() {
        let runner = FakeRunner()
        runner.readyAfter = ["db": 2]
        runner.durations = ["test": 3]
        let run = runEngine([op("db", service: true), op("test", ["db"])], jobs: 1, runner: runner)
        #expect(runner.starts.map(\.name) == ["db", "test"])
        #expect(runner.starts.map(\.tick) == [0, 2])
        #expect(run.state("db") == .finished(.stopped))
        #expect(run.state("test") == .finished(.succeeded))
        #expect(run.report.operations[0].readyNanoseconds == 2)
        #expect(runner.terminatedAt == [0: 5])
        #expect(run.report.exitCode == .success)
        #expect(run.report.counts.stopped == 1)
    }

    @Test func aServiceStopsWhenTheLastTaskThatNeedsItEndsNotWithTheRun() {
        // `late` depends on `a`, not on the service: it does not keep it up.
        let runner = FakeRunner()
        runner.durations = ["a": 1, "b": 3, "late": 10]
        let run = runEngine(
            [op("db", service: true), op("a", ["db"]), op("b", ["db"]), op("late", ["a"])], jobs: 3, runner: runner)
        #expect(runner.terminatedAt == [0: 4])
        #expect(run.state("late") == .finished(.succeeded))
        #expect(run.state("db") == .finished(.stopped))
    }

    @Test func aGroupPassesItsServiceOnToItsDependents() {
        let runner = FakeRunner()
        runner.durations = ["test": 2, "after": 5]
        let run = runEngine(
            [op("db", service: true), op("env", ["db"], group: true), op("test", ["env"]), op("after", ["test"])],
            jobs: 2, runner: runner)
        // Ready at 1, test 1–3: stopped then, while `after` runs on to 8.
        #expect(runner.terminatedAt == [0: 3])
        #expect(run.state("after") == .finished(.succeeded))
    }

    @Test func aServiceThatExitsFailsItsRunningUsersAndCancelsTheRest() {
        let runner = FakeRunner()
        runner.durations = ["db": 3, "test": 10, "wait": 5]
        runner.terminations = ["db": [.exited(1)]]
        let run = runEngine(
            [op("db", service: true), op("wait"), op("test", ["db"]), op("later", ["db", "wait"]), op("report", ["test"])],
            jobs: 3, keepGoing: true, runner: runner)
        #expect(run.state("db") == .finished(.failed))
        #expect(run.state("test") == .finished(.failed))
        #expect(run.report.operations[run.index("test")].lastResult?.serviceFailure == .serviceExited(name: "db", .exited(1)))
        #expect(run.state("later") == .cancelled(.prerequisiteFailed(prerequisite: 0)))
        #expect(run.state("report") == .cancelled(.prerequisiteFailed(prerequisite: run.index("test"))))
        #expect(run.state("wait") == .finished(.succeeded))
        #expect(run.report.exitCode == .failure)
    }

    @Test func aServiceStartsOnlyWhenATaskThatNeedsItMustRun() {
        // `slow` waits for `broken`, which fails: nothing that needs the service ever runs.
        let runner = FakeRunner()
        runner.durations = ["broken": 2]
        runner.terminations = ["broken": [.exited(2)]]
        let run = runEngine(
            [op("db", service: true), op("broken"), op("slow", ["db", "broken"])], jobs: 2, runner: runner)
        #expect(runner.startOrder == ["broken"])
        #expect(run.state("db") == .cancelled(.runStopped(after: 1)))
        #expect(run.state("slow") == .cancelled(.prerequisiteFailed(prerequisite: 1)))
    }

    @Test func aServiceWhoseUsersAreAllUpToDateNeverStarts() {
        let runner = FakeRunner()
        let operations = [op("db", service: true), op("gen", ["db"]), op("test", ["gen"])]
        let checker = ScriptedChecker(operations, decisions: ["gen": .upToDate, "test": .upToDate])
        let run = runEngine(operations, runner: runner, upToDate: checker)
        #expect(runner.startOrder.isEmpty)
        #expect(run.state("db") == .finished(.upToDate))
        #expect(run.report.exitCode == .success)
    }

    /// Issue 29 (docs/manual/watch.md): a prerequisite that ran (directly or through a group)
    /// makes a kept process of the service stale; one up to date does not.
    @Test func aServiceWhosePrerequisiteRanTellsTheRunnerItsKeptProcessIsStale() {
        let operations = [
            op("port"), op("config"), op("setup", ["port"], group: true),
            op("web", ["setup"], service: true), op("db", ["config"], service: true),
            op("test", ["web", "db"]),
        ]
        let runner = FakeRunner()
        let checker = ScriptedChecker(operations, decisions: ["config": .upToDate])
        let run = runEngine(operations, runner: runner, upToDate: checker)
        #expect(run.report.exitCode == .success)
        #expect(runner.discardedServices == ["web"])
    }

    /// `port` ran but `site` failed: the service is cancelled, never settled, yet what it would
    /// read is new; the next run may find `port` up to date and must not take the kept process.
    @Test func aServiceCancelledAfterAPrerequisiteRanIsStaleToo() {
        let runner = FakeRunner()
        runner.terminations = ["site": [.exited(1)]]
        runner.durations = ["site": 2]
        let run = runEngine(
            [op("port"), op("site"), op("web", ["port", "site"], service: true), op("test", ["web"])],
            jobs: 2, runner: runner)
        #expect(run.state("web") == .cancelled(.prerequisiteFailed(prerequisite: run.index("site"))))
        #expect(runner.discardedServices == ["web"])
    }

    @Test func servicesANeededServiceNeedsStartFirst() {
        let runner = FakeRunner()
        runner.readyAfter = ["db": 2, "api": 3]
        let run = runEngine(
            [op("db", service: true), op("api", ["db"], service: true), op("test", ["api"])], jobs: 1, runner: runner)
        #expect(runner.starts.map(\.name) == ["db", "api", "test"])
        #expect(runner.starts.map(\.tick) == [0, 2, 5])
        #expect(run.state("api") == .finished(.stopped) && run.state("db") == .finished(.stopped))
        #expect(runner.terminatedAt == [1: 6, 0: 6])
    }

    @Test func anInterruptStopsAReadyServiceWithoutFailingIt() {
        let runner = FakeRunner()
        runner.durations = ["test": 10]
        runner.signals = [(tick: 3, signal: 2)]
        let run = runEngine([op("db", service: true), op("test", ["db"])], jobs: 1, runner: runner)
        #expect(run.state("db") == .finished(.stopped))
        #expect(run.state("test") == .cancelled(.interrupted(signal: 2)))
        #expect(run.report.exitCode == .interrupted(by: 2))
    }
}
