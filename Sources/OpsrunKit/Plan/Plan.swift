/// In what order and in which waves the tasks of a run would execute.
///
/// Wave `k` (0-based) holds the tasks whose longest chain of prerequisites inside the selection has
/// `k` edges, so every task's prerequisites are in earlier waves. Within a wave, tasks are ordered
/// as the queue would pick them (SPEC §1): priority (highest first), then critical path (longest
/// first), then manifest order.
///
/// Built with Kahn's algorithm in linear time (plus sorting each wave). The selection is expected
/// to be acyclic (cycles are reported before planning); tasks on or behind a cycle are left out of
/// `waves` and keep a critical path of 0.
public struct Plan: Sendable {
    /// Task ids per wave, in the order above.
    public let waves: [[Int]]
    /// For each task id: how many tasks lie on the longest chain of dependents inside the
    /// selection, the task itself included (1 for a task nothing selected waits on); 0 for a task
    /// not selected. The engine breaks ties among ready operations with the same number.
    public let criticalPath: [Int]
    /// The selected task ids, in manifest order.
    public let selection: [Int]

    /// A plan with waves decided elsewhere (the engine's dry run), keeping this plan's critical paths.
    public init(_ plan: Plan, waves: [[Int]]) {
        self.waves = waves
        self.criticalPath = plan.criticalPath
        self.selection = plan.selection
    }

    /// Plans `selection` (ids of `graph`; duplicates and ids out of range are ignored). Only edges
    /// between selected tasks count: pass a closure (`graph.closure(of:)`) to plan a real run.
    public init(graph: TaskGraph, selection: [Int]) {
        let n = graph.count
        var selected = [Bool](repeating: false, count: n)
        for id in selection where id >= 0 && id < n { selected[id] = true }
        let chosen = selected.indices.filter { selected[$0] }

        var waiting = [Int](repeating: 0, count: n)
        for id in chosen {
            waiting[id] = graph.prerequisites[id].reduce(0) { $0 + (selected[$1] ? 1 : 0) }
        }
        var level = [Int](repeating: 0, count: n)
        var order = chosen.filter { waiting[$0] == 0 }
        var head = 0
        while head < order.count {
            let u = order[head]
            head += 1
            for d in graph.dependents[u] where selected[d] {
                level[d] = max(level[d], level[u] + 1)
                waiting[d] -= 1
                if waiting[d] == 0 { order.append(d) }
            }
        }

        // Reverse topological order: every dependent is done before the task it waits on.
        var critical = [Int](repeating: 0, count: n)
        for u in order.reversed() {
            var longest = 0
            for d in graph.dependents[u] where selected[d] { longest = max(longest, critical[d]) }
            critical[u] = longest + 1
        }

        let depth = order.reduce(-1) { max($0, level[$1]) }
        var waves = [[Int]](repeating: [], count: depth + 1)
        for u in order { waves[level[u]].append(u) }
        let tasks = graph.tasks
        for k in waves.indices {
            waves[k].sort { a, b in
                let (pa, pb) = (tasks[a].priority, tasks[b].priority)
                if pa != pb { return pa > pb }
                if critical[a] != critical[b] { return critical[a] > critical[b] }
                return a < b
            }
        }
        self.waves = waves
        self.criticalPath = critical
        self.selection = chosen
    }
}
