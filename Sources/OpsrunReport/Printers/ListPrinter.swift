import OpsrunCore
import OpsrunGraph
/// `-l/--list`: every task with its description, in manifest order.
public enum ListPrinter {
    /// The formats `--list` can print.
    public static let formats: [OutputFormat] = [.text, .json]

    /// The listing, one line per task; empty when there are no tasks.
    ///
    /// `text`: the name, padded so descriptions line up two spaces after the longest name (only the
    /// first line of a description; a task without one shows just its name).
    /// `json`, fields in this order:
    /// ```
    /// {"tasks": [{"name": "build", "desc": "Build it" | null, "deps": ["compile"]}]}
    /// ```
    /// Throws a diagnostic for `dot` and `mermaid`, which do not apply to a list.
    public static func render(_ graph: TaskGraph, format: OutputFormat) throws(Diagnostic) -> String {
        switch format {
        case .text: return text(graph)
        case .json: return json(graph)
        case .dot, .mermaid: throw OutputFormat.unsupported(format, by: "--list", supported: formats)
        }
    }

    static func text(_ graph: TaskGraph) -> String {
        let width = graph.names.reduce(0) { max($0, $1.count) }
        var out = ""
        for (name, task) in zip(graph.names, graph.tasks) {
            let desc = task.description.flatMap { $0.split(separator: "\n").first }
            if let desc, !desc.isEmpty {
                out += name + String(repeating: " ", count: width - name.count + 2) + desc + "\n"
            } else {
                out += name + "\n"
            }
        }
        return out
    }

    static func json(_ graph: TaskGraph) -> String {
        let tasks = graph.tasks.indices.map { id in
            OrderedJSON.object([
                ("name", .string(graph.names[id])),
                ("desc", .optional(graph.tasks[id].description)),
                ("deps", .strings(graph.prerequisites[id].map { graph.names[$0] })),
            ])
        }
        return OrderedJSON.object([("tasks", .array(tasks))]).rendered
    }
}
