import OpsrunCore
/// Finds every dependency cycle of a graph and describes each as a path with its edges' places.
///
/// Strongly connected components come from an iterative Tarjan (no recursion: a 100,000-task chain
/// must not overflow the stack). Inside each component with a cycle:
/// - the first cycle starts at the component's first-discovered task and is a shortest cycle
///   through it (breadth-first, prerequisites in `deps` order);
/// - then, for each edge not yet on a reported cycle (sources in discovery order, edges in `deps`
///   order), a shortest cycle through that edge, starting at its source;
/// - until every edge of the component lies on a reported cycle, or `maxCyclesPerComponent` are
///   reported; past that, one more diagnostic says how many edges are left and among which tasks.
///
/// The depth-first search starts at the roots (tasks nothing depends on) in manifest order, then at
/// the remaining tasks in manifest order. Components are reported in the order of their earliest
/// task in the manifest. Each breadth-first search only visits its component, so the whole is
/// linear in the size of the graph.
public enum CycleFinder {
    /// More cycles than this in one component are summarised in one line.
    public static let maxCyclesPerComponent = 20
    /// How many task names the summary line names before it says "and N more".
    static let maxNamesInSummary = 10

    /// One diagnostic per reported cycle; empty when the graph is acyclic.
    public static func cycles(in graph: TaskGraph) -> [Diagnostic] {
        let components = StronglyConnected(graph)
        var search = CycleSearch(graph: graph, component: components.componentOf)
        var diagnostics: [Diagnostic] = []
        for members in components.cyclic {
            diagnostics += search.report(members)
        }
        return diagnostics
    }
}

/// Tarjan's strongly connected components, iteratively.
private struct StronglyConnected {
    /// Component number of each task.
    var componentOf: [Int]
    /// Components that hold a cycle, each in discovery order, ordered by their earliest task id.
    var cyclic: [[Int]] = []

    init(_ graph: TaskGraph) {
        let n = graph.count
        let edges = graph.prerequisites
        var discovered = [Int](repeating: -1, count: n)
        var low = [Int](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [Int] = []
        // Each frame is a task and the position of the next prerequisite to look at.
        var frames: [(task: Int, next: Int)] = []
        var counter = 0
        componentOf = [Int](repeating: -1, count: n)
        var componentCount = 0
        var found: [(first: Int, members: [Int])] = []

        for start in graph.roots + Array(0..<n) where discovered[start] == -1 {
            discovered[start] = counter; low[start] = counter; counter += 1
            stack.append(start); onStack[start] = true
            frames.append((start, 0))
            while let frame = frames.last {
                let u = frame.task
                if frame.next < edges[u].count {
                    frames[frames.count - 1].next += 1
                    let v = edges[u][frame.next]
                    if discovered[v] == -1 {
                        discovered[v] = counter; low[v] = counter; counter += 1
                        stack.append(v); onStack[v] = true
                        frames.append((v, 0))
                    } else if onStack[v] {
                        low[u] = min(low[u], discovered[v])
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last { low[parent.task] = min(low[parent.task], low[u]) }
                guard low[u] == discovered[u] else { continue }
                var members: [Int] = []
                while true {
                    let w = stack.removeLast()
                    onStack[w] = false
                    componentOf[w] = componentCount
                    members.append(w)
                    if w == u { break }
                }
                componentCount += 1
                if members.count > 1 || edges[u].contains(u) {
                    // Popped last-discovered first; reverse to discovery order, root first.
                    found.append((members.min()!, members.reversed()))
                }
            }
        }
        cyclic = found.sorted { $0.first < $1.first }.map { $0.members }
    }
}
