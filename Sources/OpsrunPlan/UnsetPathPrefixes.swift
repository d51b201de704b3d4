import OpsrunCore
import OpsrunGraph
import OpsrunManifest

/// A path that an unset (or empty) variable at its start turned absolute: `outputs:
/// ["${OUTDIR}/x"]` with OUTDIR unset is `/x`, and the task wrote at the filesystem's root with only
/// a warning (`UnsetReferences`). In `dir`, `sources`, `outputs` and `depfile` that is an error
/// before anything starts, at the entry, naming the variable (docs/manual/variables.md); so is a
/// `dir` it made empty (the task ran in the manifest's directory instead). A path written absolute
/// (`/etc/hosts`), or made so by a value or a default (`${ROOT:-/srv}/x`), is meant, and allowed.
/// (An empty `sources`, `outputs` or `depfile` entry is `EmptyPaths`' error.)
public enum UnsetPathPrefixes {
    /// One error per entry; an `each` task is checked once, with its first instance's variables.
    public static func problems(selection: [Int], builder: OperationBuilder) -> [Diagnostic] {
        let graph = builder.graph
        var checked: Set<String> = []
        var diagnostics: [Diagnostic] = []
        for id in selection {
            // Read in place: binding the task first copied all of it (a dozen retains) for each
            // of a no-op's 10,000 tasks, nearly none of which starts a path with `${`.
            guard graph.tasks[id].directory.map({ startsWithReference($0.value) }) == true
                || graph.tasks[id].sources.contains(where: { startsWithReference($0.value) })
                || graph.tasks[id].outputs.contains(where: { startsWithReference($0.value) })
                || graph.tasks[id].depfile.map({ startsWithReference($0.value) }) == true
            else { continue }
            let task = graph.tasks[id]
            let name = task.instance?.task ?? task.name
            guard checked.insert(name).inserted else { continue }
            let variables = builder.environment.taskVariables(
                forTask: task.name, taskEnvironment: task.environment, instance: task.instance)
            func check(_ template: Located<String>, _ key: String, emptyToo: Bool = false) {
                guard startsWithReference(template.value),
                    let (unset, rest) = leadingUnset(template.value, variables: variables)
                else { return }
                let expanded = variables.expandChecked(template.value)
                guard rest.first == "/" || (emptyToo && expanded.isEmpty) else { return }
                let why = unset.map { "\($0) is \(variables[$0] == nil ? "not set" : "empty")" }.joined(separator: " and ")
                let shown = expanded.isEmpty ? "empty" : "'\(expanded)'"
                diagnostics.append(.error(
                    "\(key) of '\(name)': '\(template.value)' is \(shown) because \(why); "
                        + "set it or give a default: ${\(unset[0]):-build}\(rest)",
                    at: template.location))
            }
            if let directory = task.directory { check(directory, "dir", emptyToo: true) }
            for source in task.sources { check(source, "sources") }
            for output in task.outputs { check(output, "outputs") }
            if let depfile = task.depfile { check(depfile, "depfile") }
        }
        return diagnostics
    }

    private static func startsWithReference(_ text: String) -> Bool {
        text.utf8.first == UInt8(ascii: "$") && text.utf8.dropFirst().first == UInt8(ascii: "{")
    }

    /// The variables of the references `template` starts with, one after another, that expand to
    /// nothing as they are used (`${NAME}`, `${NAME%pat}`, `${NAME#pat}` with NAME unset
    /// or empty), and the template after them; `nil` when it starts with none, or with one whose
    /// value (or whose default) decides what the path is.
    static func leadingUnset(_ template: String, variables: TaskVariables) -> (names: [String], rest: Substring)? {
        var names: [String] = []
        var rest = Substring(template)
        while let (name, end) = leadingUnguardedReference(rest) {
            guard (variables[name] ?? "").isEmpty else { return nil }
            names.append(name)
            rest = rest[end...]
        }
        return names.isEmpty ? nil : (names, rest)
    }

    /// The name of an unguarded reference at the start of `text`, and where it ends.
    private static func leadingUnguardedReference(_ text: Substring) -> (name: String, end: Substring.Index)? {
        // Only `${...}` is expanded in paths (`$NAME` is text there).
        guard text.hasPrefix("${") else { return nil }
        var index = text.index(text.startIndex, offsetBy: 2)
        let nameStart = index
        while index < text.endIndex, text[index] == "_" || text[index].isASCII && (text[index].isLetter || text[index].isNumber) {
            index = text.index(after: index)
        }
        guard index > nameStart, !text[nameStart].isNumber else { return nil }
        let name = String(text[nameStart..<index])
        guard index < text.endIndex else { return nil }
        switch text[index] {
        case "}": return (name, text.index(after: index))
        case "%", "#":
            // The word may hold references of its own: the `}` that closes this one.
            var depth = 0
            while index < text.endIndex {
                if text[index] == "{", index > text.startIndex, text[text.index(before: index)] == "$" { depth += 1 }
                if text[index] == "}" {
                    if depth == 0 { return (name, text.index(after: index)) }
                    depth -= 1
                }
                index = text.index(after: index)
            }
            return nil
        default: return nil
        }
    }
}
