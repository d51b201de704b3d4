import OpsrunCore
/// Shortest cycles inside one strongly connected component, and the edges they cover.
///
/// Scratch arrays are sized to the whole graph once and reused: a search marks what it visits with
/// its own stamp, so each search costs only the size of the component it walks.
struct CycleSearch {
    let graph: TaskGraph
    /// Component number of each task; searches never leave the component they start in.
    let component: [Int]
    /// Position of each task's first edge in `covered`.
    private var edgeOffset: [Int]
    /// Whether each edge (by `edgeOffset[task] + position in deps`) lies on a reported cycle.
    private var covered: [Bool]
    private var visitStamp: [Int]
    private var stamp = 0
    /// The edge a search reached each task by: (from task, position in its deps).
    private var reachedBy: [(task: Int, edge: Int)]

    init(graph: TaskGraph, component: [Int]) {
        self.graph = graph
        self.component = component
        var offset = [Int](repeating: 0, count: graph.count + 1)
        for task in 0..<graph.count { offset[task + 1] = offset[task] + graph.prerequisites[task].count }
        edgeOffset = offset
        covered = [Bool](repeating: false, count: offset[graph.count])
        visitStamp = [Int](repeating: 0, count: graph.count)
        reachedBy = [(task: Int, edge: Int)](repeating: (-1, -1), count: graph.count)
    }

    /// The diagnostics for one component with a cycle; `members` in discovery order, root first.
    mutating func report(_ members: [Int]) -> [Diagnostic] {
        let root = members[0]
        var diagnostics = [describe(shortestPath(from: root, to: root))]
        for u in members {
            for (k, v) in graph.prerequisites[u].enumerated()
            where component[v] == component[u] && !covered[edgeOffset[u] + k] {
                if diagnostics.count == CycleFinder.maxCyclesPerComponent {
                    diagnostics.append(summary(members))
                    return diagnostics
                }
                let rest = v == u ? [] : shortestPath(from: v, to: u)
                diagnostics.append(describe([(u, k)] + rest))
            }
        }
        return diagnostics
    }

    /// The edges of a shortest path from `source` to `target` (a cycle when they are equal),
    /// breadth-first in `deps` order.
    private mutating func shortestPath(from source: Int, to target: Int) -> [(task: Int, edge: Int)] {
        stamp += 1
        visitStamp[source] = stamp
        var queue = [source]
        var head = 0
        while head < queue.count {
            let u = queue[head]
            head += 1
            for (k, v) in graph.prerequisites[u].enumerated() where component[v] == component[source] {
                if v == target {
                    var path = [(task: u, edge: k)]
                    var w = u
                    while w != source {
                        let step = reachedBy[w]
                        path.append(step)
                        w = step.task
                    }
                    return path.reversed()
                }
                if visitStamp[v] != stamp {
                    visitStamp[v] = stamp
                    reachedBy[v] = (u, k)
                    queue.append(v)
                }
            }
        }
        // Unreachable inside a strongly connected component; an empty path reports nothing wrong.
        return []
    }

    /// `dependency cycle: a -> b -> a` with one note per edge; marks the edges covered.
    private mutating func describe(_ cycle: [(task: Int, edge: Int)]) -> Diagnostic {
        var path = cycle.map { graph.names[$0.task] }
        path.append(path.first ?? "")
        var notes: [String] = []
        notes.reserveCapacity(cycle.count)
        // Headed with the file every edge is written in (an included manifest's own cycle), else
        // with the root's.
        var file: String?
        for (index, (u, k)) in cycle.enumerated() {
            covered[edgeOffset[u] + k] = true
            let v = graph.prerequisites[u][k]
            let location = graph.prerequisiteLocations[u][k]
            let edge = graph.reads[u]?[v]?.describe(reader: graph.names[u], writer: graph.names[v])
                ?? "'\(graph.names[u])' depends on '\(graph.names[v])'"
            notes.append("  \(location): \(edge)")
            if index == 0 { file = location.file } else if file != location.file { file = nil }
        }
        return Diagnostic(
            .error, at: nil, file: file ?? graph.file,
            "dependency cycle: " + path.joined(separator: " -> "), notes: notes)
    }

    /// `N more dependencies lie on cycles among 'a', 'b' and 3 more tasks` for a component past the cap.
    private func summary(_ members: [Int]) -> Diagnostic {
        var left = 0
        for u in members {
            for (k, v) in graph.prerequisites[u].enumerated()
            where component[v] == component[u] && !covered[edgeOffset[u] + k] {
                left += 1
            }
        }
        let sorted = members.sorted()
        let shown = sorted.prefix(CycleFinder.maxNamesInSummary).map { "'\(graph.names[$0])'" }
        let others = sorted.count - shown.count
        let among: String
        if others > 0 {
            among = shown.joined(separator: ", ") + " and \(others) more task\(others == 1 ? "" : "s")"
        } else if shown.count > 1 {
            among = shown.dropLast().joined(separator: ", ") + " and " + shown[shown.count - 1]
        } else {
            among = shown.joined()
        }
        let edges = left == 1 ? "1 more dependency lies" : "\(left) more dependencies lie"
        return Diagnostic(.error, at: nil, file: graph.file, "dependency cycles: \(edges) on cycles among \(among)")
    }
}
