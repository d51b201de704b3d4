import OpsrunCore
import OpsrunGraph
import OpsrunManifest

/// `${NAME}` of a variable that is not set, where opsrun expands it: in the manifest's `env`, and
/// in a run's tasks' `env`, `dir`, `sources`, `outputs` and `depfile`. It expands to nothing, as in
/// the shell, so it is a warning, not an error; but in a path it is nearly always a mistake: a typo
/// (`${SCR%.c}`), or an `each` variable used outside its task (the manifest's `env: { OBJ:
/// obj/${SRC%.c}.o }` gave every instance `obj/.o`). Before, the only sign was a wrong path, or two
/// instances sharing an output. Forms with a word for the unset case (`${NAME:-}`, `${NAME-x}`,
/// `${NAME:+x}`) say nothing is meant, and are not warned about; `${NAME:?}` is an error already.
public enum UnsetReferences {
    /// One warning per entry and name; an `each` task is checked once, with its first instance's
    /// variables (its instances share its templates, and each of them sets the `each` variables).
    public static func warnings(selection: [Int], builder: OperationBuilder) -> [Diagnostic] {
        let graph = builder.graph
        let eachNames = Set(graph.tasks.lazy.compactMap { $0.each }.flatMap { $0.names })
        var warnings: [Diagnostic] = []
        for entry in builder.manifest.environment {
            for name in Interpolation.unguardedReferences(in: entry.value) where builder.environment.shared[name] == nil {
                let why = eachNames.contains(name)
                    ? "; \(name) is an 'each' variable, set only in its task's instances: set \(entry.name) in that task's 'env'"
                    : Suggestion.phrase(for: name, in: builder.manifest.environment.map { $0.name })
                warnings.append(Diagnostic(
                    .warning, at: entry.location,
                    "the value of '\(entry.name)' in 'env' uses \(name), which is not set (it expands to nothing)\(why)"))
            }
        }
        var checkedTasks: Set<String> = []
        // An included manifest's `env` is in each of its tasks' `env`: said once, at its place.
        var said: Set<String> = []
        for id in selection {
            let task = graph.tasks[id]
            guard task.environment.contains(where: { mentions($0.value) }) || task.directory.map({ mentions($0.value) }) == true
                || task.sources.contains(where: { mentions($0.value) }) || task.outputs.contains(where: { mentions($0.value) })
                || task.depfile.map({ mentions($0.value) }) == true
            else { continue }
            let name = task.instance?.task ?? task.name
            guard checkedTasks.insert(name).inserted else { continue }
            let variables = builder.environment.taskVariables(
                forTask: task.name, taskEnvironment: task.environment, instance: task.instance)
            let candidates = (task.instance?.values.map { $0.name } ?? []) + task.environment.map { $0.name }
                + builder.manifest.environment.map { $0.name }
            func check(_ template: Located<String>, _ what: String) {
                for unset in Interpolation.unguardedReferences(in: template.value)
                where variables[unset] == nil && said.insert("\(template.location) \(unset)").inserted {
                    warnings.append(Diagnostic(
                        .warning, at: template.location,
                        "\(what) of task '\(name)' uses \(unset), which is not set (it expands to nothing)"
                            + Suggestion.phrase(for: unset, in: candidates)))
                }
            }
            for entry in task.environment {
                check(Located(entry.value, at: entry.location), "the value of '\(entry.name)' in 'env'")
            }
            if let directory = task.directory { check(directory, "'dir'") }
            for source in task.sources { check(source, "'sources'") }
            for output in task.outputs { check(output, "'outputs'") }
            if let depfile = task.depfile { check(depfile, "'depfile'") }
        }
        return warnings.sorted(by: Diagnostic.byPlace)
    }

    private static func mentions(_ text: String) -> Bool { UTF8Text.contains(UInt8(ascii: "$"), in: text) }
}
