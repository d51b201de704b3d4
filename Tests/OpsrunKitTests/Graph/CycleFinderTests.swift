import OpsrunKit
import Testing
@testable import OpsrunCore
@testable import OpsrunManifest
@testable import OpsrunGraph

@Suite struct CycleFinderTests {
    /// Each diagnostic as the command line prints it: the message line, then its notes.
    func report(_ graph: TaskGraph) -> String {
        DiagnosticRenderer().render(CycleFinder.cycles(in: graph))
    }

    @Test func cycleIsPrintedAsItsPathWithTheLocationOfEveryEdge() {
        // The example of docs/manual/manifest.md: `build` is the root that leads into the cycle at `package`.
        func at(_ line: Int) -> OpsrunCore.SourceLocation { OpsrunCore.SourceLocation(file: "Tasksfile.yaml", line: line, column: 12) }
        func task(_ name: String, _ line: Int, deps: [Located<String>]) -> TaskSpec {
            TaskSpec(name: name, location: OpsrunCore.SourceLocation(file: "Tasksfile.yaml", line: line, column: 3), deps: deps)
        }
        let manifest = Manifest(
            file: "Tasksfile.yaml", directory: "/p",
            tasks: [
                task("compile", 3, deps: [Located("package", at: at(5))]),
                task("link", 7, deps: [Located("compile", at: at(9))]),
                task("package", 12, deps: [Located("link", at: at(14))]),
                task("build", 16, deps: [Located("package", at: at(17))]),
            ])
        #expect(
            report(TaskGraph(manifest: manifest)) == """
                Tasksfile.yaml: error: dependency cycle: package -> link -> compile -> package
                  Tasksfile.yaml:14:12: 'package' depends on 'link'
                  Tasksfile.yaml:9:12: 'link' depends on 'compile'
                  Tasksfile.yaml:5:12: 'compile' depends on 'package'
                """)
    }

    @Test func acyclicGraphHasNoCycles() {
        let graph = ManifestBuilder.graph(["a": [], "b": ["a"], "c": ["a", "b"], "d": ["c", "a"]])
        #expect(CycleFinder.cycles(in: graph).isEmpty)
    }

    @Test func taskDependingOnItselfIsACycle() {
        let graph = ManifestBuilder.graph(["ok": [], "loop": ["ok", "loop"]])
        let cycles = CycleFinder.cycles(in: graph)
        #expect(
            DiagnosticRenderer().render(cycles) == """
                Tasksfile.yaml: error: dependency cycle: loop -> loop
                  Tasksfile.yaml:5:16: 'loop' depends on 'loop'
                """)
        #expect(cycles.map(\.severity) == [.error])
        #expect(cycles.map(\.location) == [nil])
    }

    @Test func componentsAreReportedInManifestOrderEachStartingAtItsFirstDiscoveredTask() {
        // `top` is searched first and reaches `d` before `c`, so that cycle starts at `d`; but the
        // component of `a` comes first in the manifest, so it is reported first.
        let graph = ManifestBuilder.graph(["a": ["b"], "b": ["a"], "c": ["d"], "d": ["c"], "top": ["d", "a"]])
        #expect(
            report(graph) == """
                Tasksfile.yaml: error: dependency cycle: a -> b -> a
                  Tasksfile.yaml:3:12: 'a' depends on 'b'
                  Tasksfile.yaml:6:12: 'b' depends on 'a'
                Tasksfile.yaml: error: dependency cycle: d -> c -> d
                  Tasksfile.yaml:12:12: 'd' depends on 'c'
                  Tasksfile.yaml:9:12: 'c' depends on 'd'
                """)
    }

    @Test func searchFromARootComesBeforeManifestOrder() {
        let graph = ManifestBuilder.graph(["x": ["y"], "y": ["z"], "z": ["x"], "main": ["z"]])
        #expect(CycleFinder.cycles(in: graph).map(\.message) == ["dependency cycle: z -> x -> y -> z"])
    }

    @Test func firstCycleIsAShortestOneThroughItsStart() {
        // From `a`, `a -> b -> c -> d -> a` comes first in deps order but `a -> e -> a` is shorter.
        let graph = ManifestBuilder.graph(["a": ["b", "e"], "b": ["c"], "c": ["d"], "d": ["a"], "e": ["a"]])
        #expect(
            CycleFinder.cycles(in: graph).map(\.message) == [
                "dependency cycle: a -> e -> a",
                "dependency cycle: a -> b -> c -> d -> a",
            ])
    }

    @Test func figureEightGivesTwoCyclesCoveringEveryEdge() {
        let graph = ManifestBuilder.graph(["x": ["a"], "a": ["b", "c"], "b": ["a"], "c": ["a"]])
        #expect(
            report(graph) == """
                Tasksfile.yaml: error: dependency cycle: a -> b -> a
                  Tasksfile.yaml:6:12: 'a' depends on 'b'
                  Tasksfile.yaml:9:12: 'b' depends on 'a'
                Tasksfile.yaml: error: dependency cycle: a -> c -> a
                  Tasksfile.yaml:6:15: 'a' depends on 'c'
                  Tasksfile.yaml:12:12: 'c' depends on 'a'
                """)
    }

    @Test func everyEdgeOfAComponentLiesOnAReportedCycle() {
        // Every task depends on both others: six edges, three two-task cycles.
        let graph = ManifestBuilder.graph(["a": ["b", "c"], "b": ["a", "c"], "c": ["a", "b"]])
        #expect(
            CycleFinder.cycles(in: graph).map(\.message) == [
                "dependency cycle: a -> b -> a",
                "dependency cycle: a -> c -> a",
                "dependency cycle: b -> c -> b",
            ])
    }

    @Test func cyclesPastTwentyInAComponentAreSummarisedInOneLine() {
        var builder = ManifestBuilder()
        let spokes = (1...25).map { "s\($0)" }
        builder.task("hub", deps: spokes)
        for spoke in spokes { builder.task(spoke, deps: ["hub"]) }
        let messages = CycleFinder.cycles(in: builder.graph).map(\.description)
        #expect(messages.count == 21)
        #expect(messages[0] == "Tasksfile.yaml: error: dependency cycle: hub -> s1 -> hub")
        #expect(messages[19] == "Tasksfile.yaml: error: dependency cycle: hub -> s20 -> hub")
        #expect(
            messages[20]
                == "Tasksfile.yaml: error: dependency cycles: 10 more dependencies lie on cycles among 'hub', "
                + "'s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9' and 16 more tasks")
    }

    @Test func aHundredThousandTaskCycleIsReportedWhole() {
        let cycles = CycleFinder.cycles(in: ManifestBuilder.chain(100_000, closed: true))
        #expect(cycles.count == 1)
        let path = (0..<100_000).map { "t\($0)" } + ["t0"]
        #expect(cycles.first?.message == "dependency cycle: " + path.joined(separator: " -> "))
        #expect(cycles.first?.notes.count == 100_000)
        #expect(cycles.first?.notes.first == "  Tasksfile.yaml:3:12: 't0' depends on 't1'")
        #expect(cycles.first?.notes.last == "  Tasksfile.yaml:300000:12: 't99999' depends on 't0'")
    }

    @Test func aHundredThousandTaskChainHasNoCycle() {
        #expect(CycleFinder.cycles(in: ManifestBuilder.chain(100_000, closed: false)).isEmpty)
    }
}
