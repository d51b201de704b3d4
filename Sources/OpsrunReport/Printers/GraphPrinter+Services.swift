import OpsrunGraph
import OpsrunManifest

/// How `--graph` shows services (docs/manual/ci.md): each with the tasks whose end stops it.
extension GraphPrinter {
    /// By service id: `service, stopped once test and report have ended`. Empty (and no work
    /// beyond one look at each task) when the graph has no service.
    static func serviceNotes(_ graph: TaskGraph, shown: [Bool]) -> [Int: String] {
        var notes: [Int: String] = [:]
        for id in 0..<graph.count where shown[id] && graph.tasks[id].service != nil {
            let last = lastUsers(of: id, in: graph, shown: shown)
            notes[id] = last.isEmpty
                ? "service, stopped once ready (nothing needs it)"
                : "service, stopped once " + Self.list(last.map { graph.names[$0] }) + " ended"
        }
        return notes
    }

    /// The tasks that need the service (its dependents, and through a group the group's): when
    /// they have all ended, the service is stopped.
    static func lastUsers(of service: Int, in graph: TaskGraph, shown: [Bool]) -> [Int] {
        var seen = Set<Int>()
        var users: [Int] = []
        var head = 0
        var frontier = [service]
        while head < frontier.count {
            let parent = frontier[head]
            head += 1
            for dependent in graph.dependents[parent] where shown[dependent] && seen.insert(dependent).inserted {
                if graph.tasks[dependent].isGroup { frontier.append(dependent) } else { users.append(dependent) }
            }
        }
        return users.sorted()
    }

    /// `a`, `a and b`, `a, b and c` (then `have`; one reads `has`).
    private static func list(_ names: [String]) -> String {
        let quoted = names.map { "'\($0)'" }
        guard quoted.count > 1 else { return quoted[0] + " has" }
        return quoted.dropLast().joined(separator: ", ") + " and " + quoted.last! + " have"
    }
}
