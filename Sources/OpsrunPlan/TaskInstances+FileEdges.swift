import OpsrunCore
import OpsrunManifest
import OpsrunGraph
import OpsrunIncremental

/// The edges sources make (`FileEdges`), added to a run's graph.
extension TaskInstances {
    /// `graph` with the edges sources make (`FileEdges`) after each task's own `deps`, at the
    /// place of the source that made each; none where a `deps` entry makes it already (the
    /// writer, or the `each` task it is an instance of).
    static func adding(_ edges: [FileEdge], to graph: TaskGraph) -> TaskGraph {
        var prerequisites = graph.prerequisites
        var locations = graph.prerequisiteLocations
        var reads: [Int: [Int: FileRead]] = [:]
        // The `each` task each instance belongs to: instances follow their task.
        var group = [Int](repeating: -1, count: graph.count)
        var lastGroup = -1
        for id in graph.tasks.indices {
            if graph.tasks[id].each != nil { lastGroup = id } else if graph.tasks[id].instance != nil { group[id] = lastGroup }
        }
        var task = -1
        var listed: Set<Int> = []
        for edge in edges {
            if edge.task != task {
                task = edge.task
                listed = Set(graph.prerequisites[task])
            }
            let writer = edge.prerequisite
            if listed.contains(writer) || (group[writer] >= 0 && listed.contains(group[writer])) { continue }
            prerequisites[task].append(writer)
            locations[task].append(graph.tasks[task].sources[edge.source].location)
            reads[task, default: [:]][writer] = edge.read
        }
        return TaskGraph(
            file: graph.file, tasks: graph.tasks, prerequisites: prerequisites, prerequisiteLocations: locations,
            reads: reads)
    }
}
