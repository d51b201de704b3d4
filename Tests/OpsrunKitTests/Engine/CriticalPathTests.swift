import OpsrunKit
import Testing
@testable import OpsrunEngine
@testable import OpsrunPlan

/// The critical path weighed by each task's last recorded duration (docs/manual/running.md, issue 15): among ready
/// operations of equal priority, the one with the most work behind it starts first.
@Suite struct CriticalPathTests {
    /// Four independent compiles; `slow` took far longer than the others when it last ran.
    let compiles = [op("a"), op("b"), op("slow"), op("c")]

    @Test func aLongTaskRecordedLastTimeStartsFirst() {
        let unknown = FakeRunner()
        unknown.durations = ["slow": 4]
        _ = runEngine(compiles, jobs: 2, runner: unknown)
        // Nothing recorded: manifest order, and the slow one starts last but one.
        #expect(unknown.startOrder == ["a", "b", "slow", "c"])
        #expect(unknown.now == 5)

        let recorded = FakeRunner()
        recorded.durations = ["slow": 4]
        _ = runEngine(compiles, jobs: 2, runner: recorded, costs: ["a": 1_000, "b": 1_000, "slow": 4_000, "c": 1_000])
        #expect(recorded.startOrder == ["slow", "a", "b", "c"])
        #expect(recorded.starts.map(\.tick) == [0, 0, 1, 2])
        #expect(recorded.now == 4)
    }

    @Test func theWorkBehindAnOperationAddsUp() {
        // x is long itself; y is short but a long task waits behind it: y's path (1 + 1 + 20) wins.
        let runner = FakeRunner()
        _ = runEngine(
            [op("x"), op("y"), op("y1", ["y"]), op("y2", ["y1"])], runner: runner,
            costs: ["x": 10, "y": 1, "y1": 1, "y2": 20])
        #expect(runner.startOrder == ["y", "y1", "y2", "x"])
    }

    @Test func priorityStillComesBeforeRecordedDurations() {
        let runner = FakeRunner()
        _ = runEngine([op("slow"), op("urgent", priority: .high)], runner: runner, costs: ["slow": 1_000_000, "urgent": 1])
        #expect(runner.startOrder == ["urgent", "slow"])
    }

    @Test func aRunWithNothingToDoNeverAsksForDurations() {
        let operations = [op("a"), op("b", ["a"])]
        let checker = ScriptedChecker(operations, decisions: ["a": .upToDate, "b": .upToDate])
        var asked = 0
        let specs = makeSpecs(operations)
        let engine = OperationEngine(
            specs: specs, configuration: EngineConfiguration(maxConcurrentOperationCount: 2), runner: FakeRunner(),
            observer: EventRecorder(), upToDate: checker,
            costs: {
                asked += 1
                return [1, 1]
            })
        #expect(engine.run().counts.upToDate == 2)
        #expect(asked == 0)
    }

    @Test func anUnrecordedTaskCountsAsTheMedianAndAGroupAsNothing() {
        let specs = makeSpecs([op("new"), op("fast"), op("slow"), op("mid"), op("all", ["fast"], group: true)])
        #expect(OperationCosts.estimate(specs: specs, recorded: [nil, 10, 30, 20, 99]) == [20, 10, 30, 20, 1])
        // Nothing recorded: every operation counts 1, the path is the number of operations behind.
        #expect(OperationCosts.estimate(specs: specs, recorded: [nil, nil, nil, nil, nil]) == [1, 1, 1, 1, 1])
        // A run that took no measurable time still counts.
        #expect(OperationCosts.estimate(specs: specs, recorded: [0, 0, 0, 0, nil]) == [1, 1, 1, 1, 1])
    }
}
