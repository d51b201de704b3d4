import Testing
@testable import OpsrunEngine
@testable import OpsrunPlan

/// docs/manual/running.md: the queue weighs each task by its last recorded duration, and a task never
/// recorded by what it reads, the size of its declared sources (issue 30), so that on a first clean
/// build the largest files, the longest compiles, start first.
@Suite struct OperationCostsTests {
    /// Three compiles in sorted order, the largest last (Lua's `lvm.c`), a link that declares no
    /// sources, and the group of them all.
    let specs = makeSpecs([op("a.c"), op("b.c"), op("lvm.c"), op("link", ["a.c", "b.c", "lvm.c"]), op("all", ["link"], group: true)])

    @Test func withNothingRecordedATaskWeighsTheBytesItReads() {
        let sizes: [UInt64?] = [100, 300, 5_000, nil, nil]
        // The link reads nothing declared: it counts as a typical task, the median size (b.c's).
        #expect(OperationCosts.estimate(specs: specs, recorded: [nil, nil, nil, nil, nil], sourceBytes: { sizes[$0] })
            == [100, 300, 5_000, 300, 1])
    }

    @Test func recordedDurationsKeepTheirMeaningAndANewTaskOfTheTypicalSizeCountsAsTheirMedian() {
        // a.c and b.c ran before (20 ms and 40 ms); lvm.c and the link are new. The new tasks'
        // median size (lvm.c's alone) counts as the recorded median, 40 ms; the link too.
        let sizes: [UInt64?] = [100, 300, 5_000, nil, nil]
        #expect(OperationCosts.estimate(
            specs: specs, recorded: [20_000, 40_000, nil, nil, nil], sourceBytes: { sizes[$0] })
            == [20_000, 40_000, 40_000, 40_000, 1])
        // Two new files: the larger, their (upper) median, counts as the recorded median; the other,
        // half its size, half as long.
        let two = makeSpecs([op("old"), op("small"), op("large")])
        #expect(OperationCosts.estimate(
            specs: two, recorded: [10_000, nil, nil], sourceBytes: { [nil, 1_000, 2_000][$0] })
            == [10_000, 5_000, 10_000])
    }

    @Test func sizesAreAskedOnlyOfTasksWithoutARecordedDuration() {
        var asked: [Int] = []
        _ = OperationCosts.estimate(specs: specs, recorded: [20_000, nil, nil, 5_000, nil]) { index in
            asked.append(index)
            return 1_000
        }
        // Not a.c nor the link (recorded), nor the group (it reads nothing and costs nothing).
        #expect(asked == [1, 2])
    }

    @Test func withNoSizeKnownEveryTaskCountsAsBefore() {
        // No sources anywhere (or none there yet): the median duration, or 1 when nothing is recorded.
        #expect(OperationCosts.estimate(specs: specs, recorded: [nil, nil, nil, nil, nil], sourceBytes: { _ in nil })
            == [1, 1, 1, 1, 1])
        #expect(OperationCosts.estimate(specs: specs, recorded: [10, 30, nil, nil, nil], sourceBytes: { _ in 0 })
            == [10, 30, 30, 30, 1])
    }

    @Test func theLargestFileStartsFirstOnAFirstBuild() {
        let operations = [op("a.c"), op("b.c"), op("lvm.c"), op("link", ["a.c", "b.c", "lvm.c"])]
        let sizes: [UInt64?] = [100, 300, 5_000, nil]
        let costs = OperationCosts.estimate(
            specs: makeSpecs(operations), recorded: [nil, nil, nil, nil], sourceBytes: { sizes[$0] })
        let runner = FakeRunner()
        runner.durations = ["a.c": 1, "b.c": 1, "lvm.c": 3, "link": 1]
        _ = runEngine(operations, jobs: 2, runner: runner,
                      costs: Dictionary(uniqueKeysWithValues: zip(operations.map(\.name), costs)))
        // lvm.c beside the two quick ones, not after them: the link starts at 3, not 4.
        #expect(runner.startOrder == ["lvm.c", "b.c", "a.c", "link"])
        #expect(runner.now == 4)
    }
}
