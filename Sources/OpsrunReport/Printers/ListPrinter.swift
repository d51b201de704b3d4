import OpsrunCore
import OpsrunGraph
import OpsrunManifest
/// `-l/--list`: every task with its description, in manifest order.
public enum ListPrinter {
    /// The formats `--list` can print.
    public static let formats: [OutputFormat] = [.text, .json]

    /// The listing, one line per task; empty when there are no tasks.
    ///
    /// `text`: the name, then in parentheses whether it is a `default` task and an `each` task's
    /// count (`build (default)`, `compile (12 instances)`, `all (default, 3 instances)`), padded
    /// so descriptions line up two spaces after the longest (only the first line of a
    /// description; a task without one shows just its name).
    /// `json`, fields in this order (`instances`: `null` for a task without `each`):
    /// ```
    /// {"tasks": [{"name": "build", "desc": "Build it" | null, "deps": ["compile"], "instances": 12 | null, "default": true}]}
    /// ```
    /// `instanceCounts[id]`: how many instances task `id` has, `nil` without `each`; empty when
    /// no task has `each`. `defaults`: the names the manifest's `default` lists.
    /// With included manifests (`namespaces`, docs/manual/includes.md), the text groups each one's tasks under a
    /// line naming it and its file, and the JSON gives each task a `"namespace"` (`null` for the
    /// root's) after `"default"`.
    /// Throws a diagnostic for `dot` and `mermaid`, which do not apply to a list.
    public static func render(
        _ graph: TaskGraph, instanceCounts: [Int?] = [], defaults: Set<String> = [], namespaces: [NamespaceSpec] = [],
        format: OutputFormat
    ) throws(Diagnostic) -> String {
        let counts = instanceCounts.isEmpty ? Array(repeating: nil, count: graph.count) : instanceCounts
        switch format {
        case .text: return text(graph, counts, defaults, namespaces)
        case .json: return json(graph, counts, defaults, namespaces)
        case .dot, .mermaid: throw OutputFormat.unsupported(format, by: "--list", supported: formats)
        }
    }

    static func text(_ graph: TaskGraph, _ counts: [Int?], _ defaults: Set<String>, _ namespaces: [NamespaceSpec]) -> String {
        let indent = namespaces.isEmpty ? "" : "  "
        let shown = graph.names.indices.map { id in
            var notes: [String] = []
            if defaults.contains(graph.names[id]) { notes.append("default") }
            if let count = counts[id] { notes.append("\(count) instance\(count == 1 ? "" : "s")") }
            return notes.isEmpty ? graph.names[id] : graph.names[id] + " (" + notes.joined(separator: ", ") + ")"
        }
        let width = shown.reduce(0) { max($0, $1.count) }
        var out = ""
        var group: Int?
        for (id, (name, task)) in zip(shown, graph.tasks).enumerated() {
            if !namespaces.isEmpty {
                let own = namespace(of: graph.tasks[id], namespaces)
                if own != group, let own {
                    let spec = namespaces[own]
                    let runs = spec.defaultTasks.isEmpty ? "" : "; 'opsrun \(spec.name)' runs \(spec.defaultTasks.joined(separator: ", "))"
                    out += (out.isEmpty ? "" : "\n") + "\(spec.name) (\(spec.file)\(runs)):\n"
                }
                group = own
            }
            let desc = task.description.flatMap { $0.split(separator: "\n").first }
            let line = (group == nil ? "" : indent) + name
            if let desc, !desc.isEmpty {
                out += line + String(repeating: " ", count: width - name.count + 2) + desc + "\n"
            } else {
                out += line + "\n"
            }
        }
        return out
    }

    /// The index of the included manifest that declared `task`; `nil` for the root's.
    static func namespace(of task: TaskSpec, _ namespaces: [NamespaceSpec]) -> Int? {
        guard task.baseDirectory != nil else { return nil }
        let name = task.instance?.task ?? task.name
        var best: Int?
        for (i, namespace) in namespaces.enumerated()
        where name.hasPrefix(namespace.name + ":") && namespace.name.count > (best.map { namespaces[$0].name.count } ?? -1) {
            best = i
        }
        return best
    }

    static func json(_ graph: TaskGraph, _ counts: [Int?], _ defaults: Set<String>, _ namespaces: [NamespaceSpec]) -> String {
        let tasks = graph.tasks.indices.map { id in
            var fields: [(String, OrderedJSON)] = [
                ("name", .string(graph.names[id])),
                ("desc", .optional(graph.tasks[id].description)),
                ("deps", .strings(graph.prerequisites[id].map { graph.names[$0] })),
                ("instances", counts[id].map { .int($0) } ?? .null),
                ("default", .bool(defaults.contains(graph.names[id]))),
            ]
            if !namespaces.isEmpty {
                fields.append(("namespace", .optional(namespace(of: graph.tasks[id], namespaces).map { namespaces[$0].name })))
            }
            return OrderedJSON.object(fields)
        }
        return OrderedJSON.object([("tasks", .array(tasks))]).rendered
    }
}
