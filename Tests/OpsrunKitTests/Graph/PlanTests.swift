import OpsrunKit
import Testing

@Suite struct PlanTests {
    /// The names of each wave.
    func waves(_ plan: Plan, _ graph: TaskGraph) -> [[String]] {
        plan.waves.map { $0.map { graph.names[$0] } }
    }

    @Test func waveIsTheLengthOfTheLongestPrerequisiteChain() {
        let graph = ManifestBuilder.graph(["a": [], "b": ["a"], "c": [], "d": ["b", "c"], "e": ["a"]])
        let plan = Plan(graph: graph, selection: graph.closure(of: [3, 4]))
        #expect(waves(plan, graph) == [["a", "c"], ["b", "e"], ["d"]])
        #expect(plan.selection == [0, 1, 2, 3, 4])
    }

    @Test func criticalPathCountsTheTasksOfTheLongestChainOfDependents() {
        let graph = ManifestBuilder.graph(["a": [], "b": ["a"], "c": [], "d": ["b", "c"], "unused": ["d"]])
        let plan = Plan(graph: graph, selection: graph.closure(of: [3]))
        #expect(plan.criticalPath == [3, 2, 2, 1, 0])
    }

    @Test func priorityBeatsCriticalPath() {
        var builder = ManifestBuilder()
        builder.task("long")
        builder.task("urgent", priority: .high)
        builder.task("idle", priority: .veryLow)
        builder.task("first", priority: .veryHigh)
        builder.task("x", deps: ["long"], run: ["x"])
        builder.task("y", deps: ["x"], run: ["y"])
        let graph = builder.graph
        let plan = Plan(graph: graph, selection: Array(0..<graph.count))
        #expect(waves(plan, graph) == [["first", "urgent", "long", "idle"], ["x"], ["y"]])
    }

    @Test func criticalPathBeatsManifestOrder() {
        let graph = ManifestBuilder.graph(["short": [], "long": [], "mid": ["long"], "end": ["mid"], "other": ["short"]])
        let plan = Plan(graph: graph, selection: Array(0..<graph.count))
        #expect(waves(plan, graph) == [["long", "short"], ["mid", "other"], ["end"]])
        #expect(plan.criticalPath == [2, 3, 2, 1, 1])
    }

    @Test func manifestOrderBreaksRemainingTies() {
        let graph = ManifestBuilder.graph(["c": [], "a": [], "b": [], "all": ["b", "a", "c"]])
        let plan = Plan(graph: graph, selection: [3, 2, 1, 0, 3])
        #expect(waves(plan, graph) == [["c", "a", "b"], ["all"]])
    }

    @Test func onlyEdgesInsideTheSelectionCount() {
        let graph = ManifestBuilder.graph(["a": [], "b": ["a"], "c": ["b"]])
        let plan = Plan(graph: graph, selection: [0, 2, 7])
        #expect(waves(plan, graph) == [["a", "c"]])
        #expect(plan.criticalPath == [1, 0, 1])
    }

    @Test func emptySelectionHasNoWaves() {
        let graph = ManifestBuilder.graph(["a": []])
        let plan = Plan(graph: graph, selection: [])
        #expect(plan.waves.isEmpty)
        #expect(plan.criticalPath == [0])
    }

    @Test func tasksOnACycleAreLeftOut() {
        let graph = ManifestBuilder.graph(["a": [], "b": ["a", "c"], "c": ["b"]])
        let plan = Plan(graph: graph, selection: [0, 1, 2])
        #expect(waves(plan, graph) == [["a"]])
    }

    @Test func aHundredThousandTaskChainPlansOneTaskPerWave() {
        let graph = ManifestBuilder.chain(100_000, closed: false)
        let plan = Plan(graph: graph, selection: graph.closure(of: [0]))
        #expect(plan.waves.count == 100_000)
        #expect(plan.waves.first == [99_999])
        #expect(plan.waves.last == [0])
        #expect(plan.criticalPath.first == 1)
        #expect(plan.criticalPath.last == 100_000)
    }
}
