import OpsrunCore
import OpsrunManifest
import OpsrunGraph
import OpsrunIncremental
// `each` (docs/manual/each.md) in the graph a run works on. A task with `each` becomes two kinds of node:
//   - one instance per value (per combination, for several variables: the first written varies
//     slowest), named `compile[src/a.c]` or `test[OS=linux,PY=3.11]`, each the task's commands
//     with its own variables, needing what the task `deps` names;
//   - the task itself, `compile`, a group of its instances: `deps: [compile]` and
//     `opsrun compile` mean every instance, through it. A dependent gets one edge, not one per
//     instance, so two `each` tasks of 100,000 instances joined by `deps` stay 200,000 edges.
// A task whose glob matches nothing has no instances: it is a group of the task's own `deps`,
// and succeeds as a group does; so does one whose glob, or every value of whose list, is empty once
// expanded (`"${DISPATCH:+x.c}"` with DISPATCH unset: an `each` over nothing; a list value empty
// once expanded is dropped). A task whose values cannot be made (`${NAME:?}` unset, a string
// without wildcards naming no file) has none either, and an error
// kept for it: a run that needs the task reports it (with every other such error) before
// anything starts; a run that does not, `--list` and `--graph` go on without its instances.
//
// The manifest (and its cache) keeps `each` as written, and `deps` cycles are looked for there: a
// cycle among instances is one among their tasks. Then the edges sources make (`FileEdges`: a
// source that is another task's output) are added between instances, and only a graph that got
// some is searched for cycles again. Globs are expanded here, once, when the run starts,
// relative to the task's `dir`, sorted by bytes, with the glob engine of `sources`.

/// The tasks of a run with every `each` task expanded into its instances.
public struct TaskInstances: Sendable {
    /// Every task of the manifest, each `each` task followed by its instances: what a run, a plan
    /// and `--graph` work on. The project's own graph when no task has `each`.
    public let graph: TaskGraph
    /// How many instances each task of the manifest has, by its id in the project's graph; `nil`
    /// for a task without `each`.
    public let instanceCounts: [Int?]
    /// The `each` tasks that have no instance, with why (by id in `graph`): for `-v`.
    public let empty: [(task: Int, reason: String)]
    /// The `each` tasks whose values could not be made, with the error (by id in `graph`).
    public let failures: [(task: Int, diagnostic: Diagnostic)]
    /// The globs the `each` tasks were expanded from (by id in `graph`): the pattern, expanded, and
    /// the absolute directory it is relative to. `--watch` looks at them: a file added there is
    /// a new instance.
    public let globs: [(task: Int, directory: String, pattern: String)]
    /// The manifest's task names, for suggestions (the instances' would drown them).
    private let declaredNames: [String]
    private let defaultTasks: [String]
    private let manifestName: String
    /// The included manifests, whose names stand for their `default`.
    private let namespaces: [NamespaceSpec]

    /// At most this many instances for one task: a matrix multiplies, and a mistake must not
    /// exhaust memory.
    public static let maximumInstances = 1_000_000

    /// Expands `project`'s `each` tasks, with `${NAME}` in their values and `dir` read from
    /// `environment`. Throws when instances cannot be told apart by name, or are too many.
    public init(project: Project, environment: EnvironmentBuilder) throws(ProjectError) {
        let declared = project.graph
        declaredNames = declared.names
        defaultTasks = project.manifest.defaultTasks.map { $0.value }
        manifestName = project.source.displayName
        namespaces = project.manifest.namespaces
        let expanded: TaskGraph
        if declared.tasks.contains(where: { $0.each != nil }) {
            var expansion = Expansion(
                declared: declared, directory: project.manifest.directory, environment: environment, text: project.text)
            expansion.run()
            expanded = TaskGraph(
                file: declared.file, tasks: expansion.tasks, prerequisites: expansion.prerequisites,
                prerequisiteLocations: expansion.locations)
            instanceCounts = expansion.instanceCounts
            empty = expansion.empty
            failures = expansion.failures
            globs = expansion.globs
            if expanded.index.count != expanded.count { throw Self.sameNames(in: expanded, text: project.text) }
        } else {
            expanded = declared
            instanceCounts = Array(repeating: nil, count: declared.count)
            empty = []
            failures = []
            globs = []
        }
        let edges = FileEdges.find(in: expanded.tasks, manifestDirectory: project.manifest.directory, environment: environment)
        if edges.isEmpty {
            graph = expanded
            return
        }
        graph = Self.adding(edges, to: expanded)
        // A cycle only a file makes (`a` reads `b`'s output, `b` needs `a`) is one like any other,
        // found before anything runs; its note names the source that made it.
        let cycles = CycleFinder.cycles(in: graph)
        if !cycles.isEmpty { throw ProjectError(diagnostics: cycles, sources: project.sourceTexts) }
    }

    /// The error for instances that share a name (values that differ only in how they are split
    /// between variables: `A: ["x,B=y"]` and `A: [x], B: [y]`, or two list values that `${NAME}`
    /// made equal).
    private static func sameNames(in graph: TaskGraph, text: String) -> ProjectError {
        var seen: Set<String> = []
        var diagnostics: [Diagnostic] = []
        for id in graph.tasks.indices where !seen.insert(graph.names[id]).inserted {
            let task = graph.tasks[id]
            let owner = task.instance?.task ?? task.name
            let each = graph.index[owner].flatMap { graph.tasks[$0].each }
            diagnostics.append(.error(
                "task '\(owner)' has two instances named '\(graph.names[id])'; give its 'each' values that differ",
                at: each?.location ?? task.location))
            if diagnostics.count == 10 { break }
        }
        return ProjectError(diagnostics: diagnostics, sources: [graph.file: text])
    }

    /// The ids (in `graph`) of the tasks a run starts from: those named, or the manifest's
    /// `default`. A name is a task's (`compile`: every instance) or an instance's
    /// (`compile[src/a.c]`). Throws a usage diagnostic for an unknown name.
    public func roots(named targets: [String]) throws(ProjectError) -> [Int] {
        let names = targets.isEmpty ? defaultTasks : targets
        if names.isEmpty { throw Project.noTaskNamed(in: manifestName, among: declaredNames) }
        return try Project.ids(of: names, in: graph.index, namespaces: namespaces, unknown: unknownTask)
    }

    /// `unknown task 'x'` with the nearest name: an instance's among its task's instances.
    private func unknownTask(_ name: String) -> String {
        if let bracket = name.firstIndex(of: "["), let task = graph.index[String(name[..<bracket])],
            graph.tasks[task].each != nil
        {
            let instances = graph.prerequisites[task].filter { graph.tasks[$0].instance != nil }.map { graph.names[$0] }
            // `test[PY=3.12,OS=mac]`: the values of `test[OS=mac,PY=3.12]`, in another order.
            func pairs(_ name: String) -> [Substring] {
                name.drop { $0 != "[" }.dropFirst().dropLast().split(separator: ",").sorted()
            }
            let reordered = instances.first { pairs($0) == pairs(name) }
            let hint = instances.isEmpty
                ? "; it has no instances"
                : reordered.map { "; did you mean '\($0)'?" } ?? matrixHint(name, task: task, pairs: pairs)
                    ?? Suggestion.phrase(for: name, in: instances)
            return "unknown task '\(name)': no instance of '\(graph.names[task])' has that name\(hint)"
        }
        // `compile[lapi.c]` from the root, for the included `lua:compile[lapi.c]`.
        if let bracket = name.firstIndex(of: "["), bracket != name.startIndex {
            let base = String(name[..<bracket])
            let eachTasks = declaredNames.filter { graph.index[$0].map { graph.tasks[$0].each != nil } ?? false }
            if let task = Suggestion.nearestTask(to: base, in: eachTasks), graph.index[task + name[bracket...]] != nil {
                return "unknown task '\(name)' (not in \(manifestName)); did you mean '\(task + name[bracket...])'?"
            }
        }
        return "unknown task '\(name)' (not in \(manifestName))\(Suggestion.taskPhrase(for: name, in: declaredNames))"
    }

    /// For a matrix task (`test[OS=...,PY=...]`): a name with a key left out (`test[OS=linux]`)
    /// gets the instances it could mean; a value that is not one of its key's, the key's values.
    private func matrixHint(_ name: String, task: Int, pairs: (String) -> [Substring]) -> String? {
        guard let each = graph.tasks[task].each, each.variables.count > 1 else { return nil }
        let given = pairs(name)
        let instances = graph.prerequisites[task].filter { graph.tasks[$0].instance != nil }
        let matching = instances.filter { Set(pairs(graph.names[$0])).isSuperset(of: given) }.map { graph.names[$0] }
        if !matching.isEmpty, !given.isEmpty {
            let shown = matching.prefix(4).map { "'\($0)'" }.joined(separator: ", ") + (matching.count > 4 ? ", ..." : "")
            return "; name every key: \(shown)"
        }
        for pair in given {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let key = String(pair[..<equals])
            let value = String(pair[pair.index(after: equals)...])
            guard let position = each.names.firstIndex(of: key) else {
                return "; its keys are \(each.names.joined(separator: ", "))"
            }
            let values = Array(Set(instances.compactMap { graph.tasks[$0].instance?.values[position].value }))
                .sorted { UTF8Text.precedes($0, $1) }
            if !values.contains(value) { return "; \(key) is one of \(values.joined(separator: ", "))" }
        }
        return nil
    }
}

/// The work of `TaskInstances.init`: the new graph's tasks and edges, made in one pass.
private struct Expansion {
    let declared: TaskGraph
    let directory: String
    let environment: EnvironmentBuilder
    /// The manifest's text, to point inside a value whose expansion fails.
    let text: String?
    var tasks: [TaskSpec] = []
    var prerequisites: [[Int]] = []
    var locations: [[SourceLocation]] = []
    var instanceCounts: [Int?]
    var empty: [(task: Int, reason: String)] = []
    var failures: [(task: Int, diagnostic: Diagnostic)] = []
    var globs: [(task: Int, directory: String, pattern: String)] = []
    /// Why the task being expanded has variables without values, besides globs matching nothing:
    /// `'${DISPATCH:+x.c}' is empty once expanded`.
    var emptied: [String] = []

    init(declared: TaskGraph, directory: String, environment: EnvironmentBuilder, text: String?) {
        self.declared = declared
        self.directory = directory
        self.environment = environment
        self.text = text
        instanceCounts = Array(repeating: nil, count: declared.count)
    }

    mutating func run() {
        // First each task's values, so every declared task's new id is known before any edge.
        var values: [[[String]]?] = []
        values.reserveCapacity(declared.count)
        var newID = [Int](repeating: 0, count: declared.count)
        var reasons: [Int: [String]] = [:]
        var next = 0
        for id in declared.tasks.indices {
            newID[id] = next
            next += 1
            guard let each = declared.tasks[id].each else {
                values.append(nil)
                continue
            }
            let taskValues: [[String]]
            emptied = []
            do {
                taskValues = try self.values(of: each, task: declared.tasks[id], id: newID[id])
            } catch {
                failures.append((newID[id], error))
                taskValues = each.variables.map { _ in [] }
            }
            let count = taskValues.reduce(1) { $0 * $1.count }
            if !emptied.isEmpty { reasons[id] = emptied }
            instanceCounts[id] = count
            values.append(taskValues)
            next += count
        }
        tasks.reserveCapacity(next)
        prerequisites.reserveCapacity(next)
        locations.reserveCapacity(next)
        for id in declared.tasks.indices {
            let task = declared.tasks[id]
            // The task's own prerequisites, in the new ids; one array shared by all its instances.
            let needs = declared.prerequisites[id].map { newID[$0] }
            let places = declared.prerequisiteLocations[id]
            guard let each = task.each, let taskValues = values[id] else {
                tasks.append(task)
                prerequisites.append(needs)
                locations.append(places)
                continue
            }
            let count = instanceCounts[id] ?? 0
            tasks.append(group(of: task))
            if count == 0 {
                prerequisites.append(needs)
                locations.append(places)
                if failures.last?.task != newID[id] { empty.append((newID[id], emptyReason(each, taskValues, reasons[id] ?? []))) }
                continue
            }
            prerequisites.append(Array((newID[id] + 1)...(newID[id] + count)))
            locations.append(Array(repeating: each.location, count: count))
            let names = each.names
            var instance = task
            instance.each = nil
            // Counting like an odometer: the last variable fastest.
            var digits = [Int](repeating: 0, count: names.count)
            for _ in 0..<count {
                let chosen = names.indices.map { (name: names[$0], value: taskValues[$0][digits[$0]]) }
                let made = TaskInstance(task: task.name, values: chosen)
                instance.name = made.name
                instance.instance = made
                tasks.append(instance)
                prerequisites.append(needs)
                locations.append(places)
                var k = digits.count - 1
                while k >= 0 {
                    digits[k] += 1
                    if digits[k] < taskValues[k].count { break }
                    digits[k] = 0
                    k -= 1
                }
            }
        }
    }

    /// The task itself in the new graph: a group of its instances, running nothing.
    func group(of task: TaskSpec) -> TaskSpec {
        TaskSpec(
            name: task.name, location: task.location, description: task.description, deps: task.deps,
            priority: task.priority, each: task.each)
    }

    /// Each variable's values, in order: a list's as written, a glob's files sorted by bytes;
    /// `${...}` expanded with the task's variables, in all the shell's forms; a failed
    /// `${NAME:?message}` is an error at its place, as in `dir`, `sources` and `outputs`, and so
    /// is a string without wildcards that names no file (`PY: "3.11"`, meant as one value: as a
    /// source without wildcards must exist). A value empty once expanded is no value: a list drops
    /// it, a glob has none (`emptied` says why, for `-v`).
    mutating func values(of each: EachSpec, task: TaskSpec, id: Int) throws(Diagnostic) -> [[String]] {
        let variables = environment.taskVariables(forTask: task.name, taskEnvironment: task.environment)
        func expand(_ value: Located<String>, _ what: @autoclosure () -> String) throws(Diagnostic) -> String {
            do {
                return try variables.expand(value.value)
            } catch {
                let failure = ExpansionFailure(template: value.value, location: value.location, problem: error)
                throw RequiredVariables.diagnostic(failure, what: what(), text: text)
            }
        }
        var result: [[String]] = []
        var total = 1
        for variable in each.variables {
            let values: [String]
            let what = "'\(variable.name)' in 'each' of task '\(task.name)'"
            switch variable.values {
            case .list(let list):
                var kept: [String] = []
                for value in list {
                    let expanded = try expand(value, what)
                    if expanded.isEmpty { continue }
                    if Self.hasControlCharacter(expanded) {
                        throw .error(
                            "\(what) has a value with a control character (a newline or tab would break the lines its instance's name is in)",
                            at: value.location)
                    }
                    kept.append(expanded)
                }
                values = kept
                if values.isEmpty {
                    let written = list.map { "'\($0.value)'" }.joined(separator: ", ")
                    emptied.append(list.count == 1
                        ? "\(written) is empty once expanded" : "every value of '\(variable.name)' is empty once expanded (\(written))")
                }
            case .glob(let pattern):
                let dir = try task.directory.map { (dir) throws(Diagnostic) in try expand(dir, "'dir' of task '\(task.name)'") }
                let base = task.workingDirectory(expandedDir: dir).map { FileText.absolute($0, relativeTo: directory) } ?? directory
                let expanded = try expand(pattern, what)
                if expanded.isEmpty {
                    emptied.append("'\(pattern.value)' is empty once expanded")
                    values = []
                    break
                }
                globs.append((id, base, expanded))
                let expansion = GlobPattern(expanded).expand(in: base)
                if expansion.isMissing {
                    throw .error(
                        "\(what): '\(pattern.value)' has no wildcards and names no file; a string is a glob, "
                            + "a list gives values (\(variable.name): [\(pattern.value)])",
                        at: pattern.location)
                }
                if let odd = expansion.paths.first(where: Self.hasControlCharacter) {
                    throw .error(
                        "\(what): '\(pattern.value)' matches a file whose name has a control character (\(odd.debugDescription)), "
                            + "which would break the lines its instance's name is in",
                        at: pattern.location)
                }
                values = expansion.paths
            }
            result.append(values)
            let (product, overflow) = total.multipliedReportingOverflow(by: values.count)
            total = overflow ? .max : product
            if total > TaskInstances.maximumInstances {
                throw .error(
                    "task '\(task.name)' would have more than \(TaskInstances.maximumInstances) instances; 'each' allows at most that many",
                    at: each.location)
            }
        }
        return result
    }

    static func hasControlCharacter(_ value: String) -> Bool {
        value.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// `'src/**/*.c' matches no file` for the globs that matched nothing.
    /// and why the others have no values (`emptied`).
    func emptyReason(_ each: EachSpec, _ values: [[String]], _ emptied: [String]) -> String {
        let patterns = zip(each.variables, values).compactMap { variable, values -> String? in
            guard values.isEmpty, case .glob(let pattern) = variable.values,
                !emptied.contains("'\(pattern.value)' is empty once expanded")
            else { return nil }
            return "'\(pattern.value)'"
        }
        let unmatched = patterns.isEmpty ? [] : ["\(patterns.joined(separator: " and ")) \(patterns.count == 1 ? "matches" : "match") no file"]
        return (emptied + unmatched).joined(separator: "; ")
    }
}
