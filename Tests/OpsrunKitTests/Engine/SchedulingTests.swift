import OpsrunKit
import Testing
@testable import OpsrunEngine

@Suite struct SchedulingTests {
    @Test func diamondRunsItsBaseOnce() {
        let runner = FakeRunner()
        let run = runEngine(
            [
                op("base"), op("left", ["base"]), op("right", ["base"]),
                op("top", ["left", "right"]),
            ],
            jobs: 2, runner: runner)
        #expect(runner.startOrder == ["base", "left", "right", "top"])
        #expect(runner.starts.map(\.tick) == [0, 1, 1, 2])
        #expect(
            run.report.operations.map(\.state) == Array(repeating: .finished(.succeeded), count: 4))
        #expect(run.report.operations.map(\.attempts) == [1, 1, 1, 1])
        #expect(run.report.exitCode == .success)
    }

    @Test func priorityBeatsCriticalPathBeatsManifestOrder() {
        let runner = FakeRunner()
        _ = runEngine(
            [
                op("a"), op("b"), op("b2", ["b"]), op("c", priority: .high), op("d"),
                op("e", priority: .veryLow), op("e2", ["e"]), op("e3", ["e2"]),
            ],
            runner: runner)
        // c by priority; b before a and d by its longer chain; then manifest order; e's long chain
        // cannot lift its very-low priority.
        #expect(runner.startOrder == ["c", "b", "a", "b2", "d", "e", "e2", "e3"])
    }

    @Test func criticalPathCountsTheLongestChainBehindAnOperation() {
        let runner = FakeRunner()
        // x has 3 dependents side by side (chain of 2); y has a chain of 3 behind it.
        _ = runEngine(
            [
                op("x"), op("x1", ["x"]), op("x2", ["x"]), op("x3", ["x"]),
                op("y"), op("y1", ["y"]), op("y2", ["y1"]),
            ],
            runner: runner)
        #expect(runner.startOrder == ["y", "x", "y1", "x1", "x2", "x3", "y2"])
    }

    @Test func jobsBoundIsReachedAndNeverExceeded() {
        let runner = FakeRunner()
        runner.durations = ["t1": 3, "t4": 2]
        let run = runEngine((0..<10).map { op("t\($0)") }, jobs: 3, runner: runner)
        #expect(runner.maxExecuting() == 3)
        #expect(run.report.counts.succeeded == 10)
    }

    @Test func queueAtItsBoundDoesNotBlockOtherReadyOperations() {
        let runner = FakeRunner()
        runner.durations = ["n1": 2, "n2": 2, "n3": 2]
        let net = Set(["n1", "n2", "n3"])
        let run = runEngine(
            [
                op("n1", priority: .high, queue: 0), op("n2", priority: .high, queue: 0),
                op("n3", priority: .high, queue: 0), op("o1"), op("o2"),
            ],
            jobs: 3, queueBounds: [1], runner: runner)
        #expect(runner.startOrder == ["n1", "o1", "o2", "n2", "n3"])
        #expect(runner.starts.map(\.tick) == [0, 0, 0, 2, 4])
        #expect(runner.maxExecuting(among: net) == 1)
        #expect(run.report.exitCode == .success)
    }

    @Test func eachNamedQueueKeepsItsOwnBound() {
        let runner = FakeRunner()
        let net = Set((0..<6).map { "net\($0)" })
        let link = Set((0..<4).map { "link\($0)" })
        for name in net { runner.durations[name] = 3 }
        _ = runEngine(
            net.sorted().map { op($0, queue: 0) } + link.sorted().map { op($0, queue: 1) }
                + (0..<4).map { op("free\($0)") },
            jobs: 4, queueBounds: [2, 1], runner: runner)
        #expect(runner.maxExecuting(among: net) == 2)
        #expect(runner.maxExecuting(among: link) == 1)
        #expect(runner.maxExecuting() == 4)
        #expect(runner.startOrder.count == 14)
    }

    @Test func groupFinishesAtOnceWithoutTheRunner() {
        let runner = FakeRunner()
        runner.durations = ["slow": 3]
        let run = runEngine(
            [
                op("slow"), op("all", group: true), op("after", ["all"]),
                op("end", ["slow", "after"], group: true),
            ],
            jobs: 1, runner: runner)
        #expect(runner.startOrder == ["slow", "after"])
        #expect(runner.starts.map(\.tick) == [0, 3])
        #expect(run.startedNames == ["all", "slow", "after", "end"])
        #expect(
            Array(run.recorder.events.prefix(2)) == [
                .operationStarted(index: 1, attempt: 1),
                .finished(index: 1, .succeeded, result: nil),
            ])
        #expect(run.state("end") == .finished(.succeeded))
        #expect(run.report.operations[run.index("all")].attempts == 1)
        #expect(run.report.operations[run.index("all")].lastResult == nil)
    }

    @Test func chainOfGroupsDoesNotTakeTheOnlySlot() {
        let runner = FakeRunner()
        let run = runEngine(
            [
                op("g1", group: true), op("g2", ["g1"], group: true), op("g3", ["g2"], group: true),
                op("x"),
            ],
            jobs: 1, runner: runner)
        // The groups finished at tick 0 and 'x' still started at tick 0 in the single slot.
        #expect(run.startedNames == ["g1", "g2", "g3", "x"])
        #expect(
            runner.starts == [FakeRunner.Start(name: "x", attempt: 1, tick: 0, executing: ["x"])])
    }

    @Test func interactiveOperationRunsAlone() {
        let runner = FakeRunner()
        runner.durations = ["a": 2, "i": 2]
        _ = runEngine(
            [op("a"), op("b"), op("i", interactive: true), op("c"), op("d")], jobs: 3,
            runner: runner)
        // 'i' waits for 'a' and 'b' to finish and holds back 'c' and 'd' until it is done.
        #expect(runner.startOrder == ["a", "b", "i", "c", "d"])
        #expect(
            runner.starts[2] == FakeRunner.Start(name: "i", attempt: 1, tick: 2, executing: ["i"]))
        #expect(runner.starts.filter { $0.executing.contains("i") }.count == 1)
    }

    @Test func runnerEventsReachTheObserverWithOperationIndices() {
        let runner = FakeRunner()
        runner.outputs = ["b": Array("hello\n".utf8)]
        let run = runEngine([op("a"), op("b", ["a"])], runner: runner)
        let result = JobResult(
            termination: .exited(0), commandIndex: 0, startNanoseconds: 1, endNanoseconds: 2)
        #expect(
            Array(run.recorder.events.suffix(4)) == [
                .operationStarted(index: 1, attempt: 1),
                .commandStarted(index: 1, commandIndex: 0),
                .output(index: 1, .standardOutput, Array("hello\n".utf8)),
                .finished(index: 1, .succeeded, result: result),
            ])
        #expect(run.report.operations[1].startNanoseconds == 1)
        #expect(run.report.operations[1].endNanoseconds == 2)
    }
}
