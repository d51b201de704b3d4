import OpsrunGraph
/// `--graph`: the dependency graph of the tasks asked, as a tree, JSON, Graphviz or Mermaid.
///
/// Shows the given root tasks and everything they need. With no roots it shows every task: the
/// tasks nothing depends on, then (only possible with a cycle) any task they do not reach, each in
/// manifest order. Edges go from a task to its prerequisite, as in `deps`.
public enum GraphPrinter {
    /// The graph in `format`; every format applies. Output ends with a newline unless empty.
    ///
    /// - `text`: a tree per root, as `tree` draws it. A task reached again is shown once with its
    ///   prerequisites; later mentions read `name (see above)`.
    /// - `json`, fields in this order; tasks in manifest order, edges by task then `deps` order:
    ///   ```
    ///   {"tasks": [{"name": "build", "deps": ["compile"], "queue": "net" | null,
    ///               "priority": "very-low" | "low" | "normal" | "high" | "very-high"}],
    ///    "edges": [{"from": "build", "to": "compile"}]}
    ///   ```
    /// - `dot`: `digraph opsrun { ... }` with quoted names, `"build" -> "compile";`.
    /// - `mermaid`: `graph TD` with ids `n0`, `n1`, … and quoted labels, so any name renders.
    public static func render(_ graph: TaskGraph, roots: [Int] = [], format: OutputFormat) -> String {
        let (roots, shown) = selection(graph, roots: roots)
        let ids = shown.indices.filter { shown[$0] }
        switch format {
        case .text: return tree(graph, roots: roots)
        case .json: return json(graph, ids: ids)
        case .dot: return dot(graph, ids: ids)
        case .mermaid: return mermaid(graph, ids: ids)
        }
    }

    /// The roots to draw from and the mask of tasks shown.
    static func selection(_ graph: TaskGraph, roots: [Int]) -> (roots: [Int], shown: [Bool]) {
        if !roots.isEmpty {
            let valid = roots.filter { $0 >= 0 && $0 < graph.count }
            return (valid, graph.closureMask(of: valid))
        }
        var roots = graph.roots
        var shown = graph.closureMask(of: roots)
        // Tasks only on or behind a cycle have a dependent, so no root reaches them; show them too.
        for id in 0..<graph.count where !shown[id] {
            roots.append(id)
            graph.addClosure(of: id, to: &shown)
        }
        return (roots, shown)
    }

    /// ```
    /// build
    /// ├── compile
    /// │   └── fetch
    /// └── docs
    /// ```
    static func tree(_ graph: TaskGraph, roots: [Int]) -> String {
        var printed = [Bool](repeating: false, count: graph.count)
        var out = ""
        // Iterative pre-order: each entry is a task, the text before its name, and the text
        // before its prerequisites' lines.
        var stack: [(task: Int, lead: String, childLead: String)] = []
        for root in roots {
            stack.append((root, "", ""))
            while let (task, lead, childLead) = stack.popLast() {
                out += lead + graph.names[task]
                if printed[task] {
                    out += " (see above)\n"
                    continue
                }
                out += "\n"
                printed[task] = true
                let prerequisites = graph.prerequisites[task]
                for (i, p) in prerequisites.enumerated().reversed() {
                    let last = i == prerequisites.count - 1
                    stack.append((p, childLead + (last ? "└── " : "├── "), childLead + (last ? "    " : "│   ")))
                }
            }
        }
        return out
    }

    static func json(_ graph: TaskGraph, ids: [Int]) -> String {
        var tasks: [OrderedJSON] = []
        var edges: [OrderedJSON] = []
        for id in ids {
            let deps = graph.prerequisites[id].map { graph.names[$0] }
            tasks.append(
                .object([
                    ("name", .string(graph.names[id])),
                    ("deps", .strings(deps)),
                    ("queue", .optional(graph.tasks[id].queue?.value)),
                    ("priority", .string(graph.tasks[id].priority.name)),
                ]))
            for dep in deps {
                edges.append(.object([("from", .string(graph.names[id])), ("to", .string(dep))]))
            }
        }
        return OrderedJSON.object([("tasks", .array(tasks)), ("edges", .array(edges))]).rendered
    }

    static func dot(_ graph: TaskGraph, ids: [Int]) -> String {
        var out = "digraph opsrun {\n"
        for id in ids { out += "  \(dotQuoted(graph.names[id]));\n" }
        for id in ids {
            for p in graph.prerequisites[id] {
                out += "  \(dotQuoted(graph.names[id])) -> \(dotQuoted(graph.names[p]));\n"
            }
        }
        return out + "}\n"
    }

    /// A Graphviz quoted ID: only `"` and `\` need escaping inside the quotes.
    static func dotQuoted(_ name: String) -> String {
        var out = "\""
        for c in name {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out + "\""
    }

    static func mermaid(_ graph: TaskGraph, ids: [Int]) -> String {
        // Mermaid ids must be plain words; names with `:` or `.` would break, so number them.
        var node = [Int](repeating: -1, count: graph.count)
        for (n, id) in ids.enumerated() { node[id] = n }
        var out = "graph TD\n"
        for (n, id) in ids.enumerated() { out += "  n\(n)[\"\(mermaidLabel(graph.names[id]))\"]\n" }
        for id in ids {
            for p in graph.prerequisites[id] { out += "  n\(node[id]) --> n\(node[p])\n" }
        }
        return out
    }

    /// Text safe inside a quoted Mermaid label: a quote becomes the entity `#quot;`.
    static func mermaidLabel(_ name: String) -> String {
        var out = ""
        for c in name {
            switch c {
            case "\"": out += "#quot;"
            case "\n": out += " "
            default: out.append(c)
            }
        }
        return out
    }
}
