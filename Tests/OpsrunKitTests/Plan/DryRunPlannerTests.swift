import OpsrunKit
import Testing
@testable import OpsrunCore
@testable import OpsrunEngine
@testable import OpsrunManifest
@testable import OpsrunGraph
@testable import OpsrunPlan

/// `-n` plans through the real engine: waves are what would start together under the same bounds.
@Suite struct DryRunPlannerTests {
    /// The plan of `roots` (all tasks when empty) at `-j jobs`, as task names per wave.
    static func waves(_ manifest: Manifest, _ roots: [String] = [], jobs: Int = 64) -> [[String]] {
        let graph = TaskGraph(manifest: manifest)
        let plan = plan(graph, manifest, roots, jobs: jobs)
        return plan.waves.map { $0.map { graph.names[$0] } }
    }

    static func plan(_ graph: TaskGraph, _ manifest: Manifest, _ roots: [String] = [], jobs: Int = 64) -> Plan {
        let selection = roots.isEmpty ? Array(0..<graph.count) : graph.closure(of: roots.map { graph.index[$0]! })
        let environment = EnvironmentBuilder(processEnvironment: [:], dotenv: [], manifestEnvironment: [], overrides: [])
        let (specs, bounds) = OperationBuilder(graph: graph, manifest: manifest, environment: environment).operations(for: selection)
        return DryRunPlanner.plan(
            specs: specs, taskIDs: selection,
            configuration: EngineConfiguration(maxConcurrentOperationCount: jobs, queueBounds: bounds))
    }

    @Test func waveIsWhatCanStartOnceTheWaveBeforeHasFinished() {
        var b = ManifestBuilder()
        for (name, deps) in [("a", []), ("b", ["a"]), ("c", []), ("d", ["b", "c"]), ("e", ["a"])] as [(String, [String])] {
            b.task(name, deps: deps, run: ["echo \(name)"])
        }
        #expect(Self.waves(b.manifest, ["d", "e"]) == [["a", "c"], ["b", "e"], ["d"]])
    }

    @Test func priorityBeatsCriticalPathWhichBeatsManifestOrder() {
        var b = ManifestBuilder()
        b.task("short", run: ["s"])
        b.task("long", run: ["l"])
        b.task("urgent", run: ["u"], priority: .high)
        b.task("idle", run: ["i"], priority: .veryLow)
        b.task("mid", deps: ["long"], run: ["m"])
        b.task("end", deps: ["mid"], run: ["e"])
        #expect(Self.waves(b.manifest) == [["urgent", "long", "short", "idle"], ["mid"], ["end"]])
    }

    @Test func jobsBoundSplitsAWave() {
        var b = ManifestBuilder()
        for name in ["a", "b", "c"] { b.task(name, run: ["echo \(name)"]) }
        b.task("all", deps: ["a", "b", "c"])
        #expect(Self.waves(b.manifest, ["all"], jobs: 2) == [["a", "b"], ["c"], ["all"]])
    }

    @Test func namedQueueBoundSplitsOnlyItsOwnTasks() {
        var b = ManifestBuilder()
        b.task("q1", run: ["1"], queue: "net")
        b.task("q2", run: ["2"], queue: "net")
        b.task("free", run: ["f"])
        var manifest = b.manifest
        manifest.queues = [QueueSpec(name: "net", maxConcurrent: 1, location: OpsrunCore.SourceLocation(file: "Tasksfile.yaml", line: 1, column: 1))]
        #expect(Self.waves(manifest, jobs: 4) == [["q1", "free"], ["q2"]])
    }

    @Test func aHundredThousandTaskChainPlansOneTaskPerWave() {
        let graph = ManifestBuilder.chain(100_000, closed: false)
        let manifest = Manifest(file: graph.file, directory: "/project", tasks: graph.tasks)
        let plan = Self.plan(graph, manifest, [graph.names[0]])
        #expect(plan.waves.count == 100_000)
        #expect(plan.waves.first == [99_999])
        #expect(plan.waves.last == [0])
    }
}
