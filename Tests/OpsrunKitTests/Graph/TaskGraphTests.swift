import OpsrunKit
import Testing

@Suite struct TaskGraphTests {
    @Test func idsFollowManifestOrderWithEdgesBothWays() {
        let graph = ManifestBuilder.graph(["fetch": [], "compile": ["fetch", "gen"], "gen": [], "build": ["compile", "gen"]])
        #expect(graph.names == ["fetch", "compile", "gen", "build"])
        #expect(graph.index == ["fetch": 0, "compile": 1, "gen": 2, "build": 3])
        #expect(graph.prerequisites == [[], [0, 2], [], [1, 2]])
        #expect(graph.dependents == [[1], [3], [1, 3], []])
        #expect(graph.tasks.map(\.name) == graph.names)
        #expect(graph.roots == [3])
        #expect(graph.file == "Tasksfile.yaml")
    }

    @Test func prerequisiteLocationsAreTheDepsEntries() {
        let graph = ManifestBuilder.graph(["fetch": [], "gen": [], "compile": ["fetch", "gen"]])
        #expect(graph.prerequisiteLocations[2].map(\.description) == ["Tasksfile.yaml:7:12", "Tasksfile.yaml:7:19"])
        #expect(graph.prerequisiteLocations[0].isEmpty)
    }

    @Test func unknownAndRepeatedDepsAreSkipped() {
        let graph = ManifestBuilder.graph(["a": [], "b": ["a", "nope", "a"]])
        #expect(graph.prerequisites == [[], [0]])
        #expect(graph.prerequisiteLocations[1].map(\.column) == [12])
        #expect(graph.dependents == [[1], []])
    }

    @Test func everyTaskIsARootWithoutDeps() {
        let graph = ManifestBuilder.graph(["x": [], "y": [], "z": []])
        #expect(graph.roots == [0, 1, 2])
        #expect(graph.count == 3)
    }
}

@Suite struct SelectionTests {
    let graph = ManifestBuilder.graph([
        "fetch": [], "lint": [], "compile": ["fetch"], "docs": [], "link": ["compile"], "build": ["link", "docs"],
    ])

    @Test func closureHoldsEveryTransitivePrerequisiteInManifestOrder() {
        #expect(graph.closure(of: [5]) == [0, 2, 3, 4, 5])
        #expect(graph.closure(of: [4]) == [0, 2, 4])
    }

    @Test func closureOfSeveralRootsListsSharedTasksOnce() {
        #expect(graph.closure(of: [4, 2, 1, 4]) == [0, 1, 2, 4])
        #expect(graph.closureMask(of: [2]) == [true, false, true, false, false, false])
    }

    @Test func closureOfNothingIsEmptyAndBadIdsAreIgnored() {
        #expect(graph.closure(of: []) == [])
        #expect(graph.closure(of: [-1, 99]) == [])
    }

    @Test func closureFollowsA100kChainWithoutRecursion() {
        let chain = ManifestBuilder.chain(100_000, closed: false)
        #expect(chain.closure(of: [0]).count == 100_000)
        #expect(chain.closure(of: [99_998]) == [99_998, 99_999])
    }

    @Test func closureStopsOnACycle() {
        let cyclic = ManifestBuilder.graph(["a": ["b"], "b": ["a"], "c": []])
        #expect(cyclic.closure(of: [1]) == [0, 1])
    }
}
