import OpsrunCore
import OpsrunGraph
import OpsrunIncremental
import OpsrunManifest

/// A `sources`, `outputs` or `depfile` entry that `${...}` expanded to nothing (`${NOPE}` unset):
/// an error before anything starts, at the entry, as an `each` value that expands to nothing is.
/// Left alone, an empty output was "missing" at every run, so the task never came up to date, an
/// empty depfile was warned about at every run, and an empty source was silently ignored.
public enum EmptyPaths {
    /// One error per entry of a task (an instance's task, once for all its instances) that is empty
    /// once expanded. `specs[i]` is task `selection[i]` of `graph`, as `incrementalSpecs` makes them.
    public static func problems(of specs: [IncrementalTaskSpec], selection: [Int], graph: TaskGraph) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var reported: Set<SourceLocation> = []
        for (index, spec) in specs.enumerated() {
            let emptySource = spec.sources.firstIndex(where: \.isEmpty)
            let emptyOutput = spec.outputs.firstIndex(where: \.isEmpty)
            guard emptySource != nil || emptyOutput != nil || spec.depfile?.isEmpty == true else { continue }
            let task = graph.tasks[selection[index]]
            let name = task.instance?.task ?? task.name
            var entries: [(key: String, template: Located<String>)] = []
            entries += zip(spec.sources, task.sources).filter { $0.0.isEmpty }.map { ("sources", $0.1) }
            entries += zip(spec.outputs, task.outputs).filter { $0.0.isEmpty }.map { ("outputs", $0.1) }
            if spec.depfile?.isEmpty == true, let depfile = task.depfile { entries.append(("depfile", depfile)) }
            for (key, template) in entries where reported.insert(template.location).inserted {
                let entry = key == "depfile" ? "'depfile'" : "an entry of '\(key)'"
                // Named: the variable used as it is (`${INPUT}`, `${DEPS%.d}`) is the one to set.
                let variable = Interpolation.unguardedReferences(in: template.value).first
                let fix = variable.map { "set \($0), or give it a default ('${\($0):-...}')" }
                    ?? "set the variable, or give it a default ('${NAME:-...}')"
                diagnostics.append(.error(
                    "\(entry) of task '\(name)' is empty once expanded ('\(template.value)'); a path cannot be empty: \(fix)",
                    at: template.location))
            }
        }
        return diagnostics
    }
}
