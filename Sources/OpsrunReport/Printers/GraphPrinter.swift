import OpsrunCore
import OpsrunEngine
import OpsrunGraph
import OpsrunManifest

/// `--graph`: the dependency graph of the tasks asked, as a tree, JSON, Graphviz or Mermaid.
///
/// Shows the given root tasks and everything they need. With no roots it shows every task: the
/// tasks nothing depends on, then (only possible with a cycle) any task they do not reach, each in
/// manifest order. Edges go from a task to its prerequisite, as in `deps`; an edge a source made
/// (a source that is the prerequisite's output, docs/manual/up-to-date.md) says which file it reads.
public enum GraphPrinter {
    /// The graph in `format`; every format applies. Output ends with a newline unless empty.
    ///
    /// - `text`: a tree per root, as `tree` draws it. A task reached again is shown once with its
    ///   prerequisites; later mentions read `name (see above)`. Past `indentedDepth` levels the
    ///   indent stops growing and each line carries its depth (`└── [17] name`), so a chain of
    ///   10,000 tasks prints 10,000 short lines, not 190 MiB of spaces. A prerequisite a file
    ///   made reads `compile[main.c] (reads main.o)`.
    /// - `json`, fields in this order; tasks in manifest order, edges by task then `deps` order:
    ///   ```
    ///   {"tasks": [{"name": "build", "deps": ["compile"], "queue": "net" | null,
    ///               "priority": "very-low" | "low" | "normal" | "high" | "very-high"}],
    ///    "edges": [{"from": "build", "to": "compile"}]}
    ///   ```
    ///   an edge a file made has `"reads": "main.o"` after `to`.
    /// - `dot`: `digraph opsrun { ... }` with quoted names, `"build" -> "compile";`; a file's edge
    ///   `"link" -> "compile[main.c]" [label="main.o"];`.
    /// - `mermaid`: `graph TD` with ids `n0`, `n1`, … and quoted labels, so any name renders; a
    ///   file's edge `n0 -->|"main.o"| n1`.
    public static func render(_ graph: TaskGraph, roots: [Int] = [], format: OutputFormat) -> String {
        var text = ""
        write(graph, roots: roots, format: format) { text += $0 }
        return text
    }

    /// `render`'s text, handed to `output` in chunks as it is made.
    public static func write(
        _ graph: TaskGraph, roots: [Int] = [], format: OutputFormat, to output: @escaping (String) -> Void
    ) {
        let (roots, shown) = selection(graph, roots: roots)
        var out = ChunkedOutput(output)
        let services = serviceNotes(graph, shown: shown)
        switch format {
        case .text: tree(graph, roots: roots, services: services, to: &out)
        case .json: out.append(json(graph, ids: shown.indices.filter { shown[$0] }, services: services))
        case .dot: dot(graph, ids: shown.indices.filter { shown[$0] }, services: services, to: &out)
        case .mermaid: mermaid(graph, ids: shown.indices.filter { shown[$0] }, services: services, to: &out)
        }
        out.flush()
    }

    /// Levels of the text tree drawn with a growing indent (4 columns each).
    static let indentedDepth = 16

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
    static func tree(_ graph: TaskGraph, roots: [Int], services: [Int: String] = [:], to out: inout ChunkedOutput) {
        var printed = [Bool](repeating: false, count: graph.count)
        // Iterative pre-order: each entry is a task, its depth, the text before its name, and the
        // text before its prerequisites' lines (which stops growing at `indentedDepth`).
        var stack: [(task: Int, depth: Int, lead: String, childLead: String, reads: String?)] = []
        for root in roots {
            stack.append((root, 0, "", "", nil))
            while let (task, depth, lead, childLead, reads) = stack.popLast() {
                out.append(lead)
                if depth > indentedDepth { out.append("[\(depth)] ") }
                out.append(graph.names[task])
                if let reads { out.append(" (reads \(reads))") }
                if !services.isEmpty, let note = services[task] { out.append(" (\(note))") }
                if printed[task] {
                    out.append(" (see above)\n")
                    continue
                }
                out.append("\n")
                printed[task] = true
                let prerequisites = graph.prerequisites[task]
                let grows = depth < indentedDepth
                let files = graph.reads[task]
                for (i, p) in prerequisites.enumerated().reversed() {
                    let last = i == prerequisites.count - 1
                    let below = grows ? childLead + (last ? "    " : "│   ") : childLead
                    stack.append((p, depth + 1, childLead + (last ? "└── " : "├── "), below, files?[p]?.file))
                }
            }
        }
    }

    static func json(_ graph: TaskGraph, ids: [Int], services: [Int: String] = [:]) -> String {
        var tasks: [OrderedJSON] = []
        var edges: [OrderedJSON] = []
        var shownMask: [Bool] = []
        if !services.isEmpty {
            shownMask = [Bool](repeating: false, count: graph.count)
            for id in ids { shownMask[id] = true }
        }
        for id in ids {
            let deps = graph.prerequisites[id].map { graph.names[$0] }
            var fields: [(String, OrderedJSON)] = [
                ("name", .string(graph.names[id])),
                ("deps", .strings(deps)),
                ("queue", .optional(graph.tasks[id].queue?.value)),
                ("priority", .string(graph.tasks[id].priority.name)),
            ]
            if !services.isEmpty, services[id] != nil, let service = graph.tasks[id].service {
                let last = lastUsers(of: id, in: graph, shown: shownMask)
                fields.append(("service", .object([
                    ("ready", .optional(service.ready?.value)),
                    ("stopped_after", .strings(last.map { graph.names[$0] })),
                ])))
            }
            tasks.append(.object(fields))
            let files = graph.reads[id]
            for p in graph.prerequisites[id] {
                var edge: [(String, OrderedJSON)] = [("from", .string(graph.names[id])), ("to", .string(graph.names[p]))]
                if let read = files?[p] { edge.append(("reads", .string(read.file))) }
                edges.append(.object(edge))
            }
        }
        return OrderedJSON.object([("tasks", .array(tasks)), ("edges", .array(edges))]).rendered
    }

    static func dot(_ graph: TaskGraph, ids: [Int], services: [Int: String] = [:], to out: inout ChunkedOutput) {
        out.append("digraph opsrun {\n")
        for id in ids {
            if !services.isEmpty, services[id] != nil {
                out.append("  \(dotQuoted(graph.names[id])) [style=dashed, label=\(dotQuoted(graph.names[id] + " (service)"))];\n")
            } else {
                out.append("  \(dotQuoted(graph.names[id]));\n")
            }
        }
        for id in ids {
            let files = graph.reads[id]
            for p in graph.prerequisites[id] {
                let label = files?[p].map { " [label=\(dotQuoted($0.file))]" } ?? ""
                out.append("  \(dotQuoted(graph.names[id])) -> \(dotQuoted(graph.names[p]))\(label);\n")
            }
        }
        out.append("}\n")
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

    static func mermaid(_ graph: TaskGraph, ids: [Int], services: [Int: String] = [:], to out: inout ChunkedOutput) {
        // Mermaid ids must be plain words; names with `:` or `.` would break, so number them.
        var node = [Int](repeating: -1, count: graph.count)
        for (n, id) in ids.enumerated() { node[id] = n }
        out.append("graph TD\n")
        for (n, id) in ids.enumerated() {
            let service = !services.isEmpty && services[id] != nil
            out.append("  n\(n)[\"\(mermaidLabel(graph.names[id] + (service ? " (service)" : "")))\"]\n")
        }
        for id in ids {
            let files = graph.reads[id]
            for p in graph.prerequisites[id] {
                let label = files?[p].map { "|\"\(mermaidLabel($0.file))\"|" } ?? ""
                out.append("  n\(node[id]) -->\(label) n\(node[p])\n")
            }
        }
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
