import OpsrunCore
import OpsrunGraph
import OpsrunManifest

/// What the environment must hold before a run (or its plan) starts (docs/manual/variables.md): every selected
/// task's `requires` variables set and not empty, and every `${NAME:?message}` it expands (in its
/// `env`, `dir`, `sources`, `outputs` and `depfile`, and the manifest's `env`) satisfied. Tasks that are not
/// part of the run need nothing. An instance of an `each` task is checked with its own variables
/// (`SRC` is set for `compile[src/a.c]`), and reported as its task. (`${NAME:?}` in `each` values
/// is checked where they are expanded, `TaskInstances`.)
public enum RequiredVariables {
    /// Every problem, one diagnostic each, sorted by place; empty when the run may start.
    /// `source`: the text of a manifest file by its display name, to point inside a value; asked
    /// for only when there is a problem.
    public static func problems(
        selection: [Int], builder: OperationBuilder, source: (String) -> String?
    ) -> [Diagnostic] {
        var known: [String: String?] = [:]
        func text(_ file: String) -> String? {
            if let made = known[file] { return made }
            let made = source(file)
            known[file] = .some(made)
            return made
        }
        var diagnostics: [Diagnostic] = []
        for failure in builder.environment.sharedProblems {
            diagnostics.append(diagnostic(failure, what: "the value of '\(failure.entry ?? "")' in 'env'", text: text(failure.location.file)))
        }
        let manifest = builder.manifest
        // An instance of an `each` task is reported as its task (`compile`): a problem its
        // instances share is said once (`seen`), not once per file. Instances whose `env` comes
        // out the same for all (`TemplateVariables.isShared`) have their `env` checked once.
        var seen: Set<Diagnostic> = []
        var checkedEnvironments: Set<String> = []
        var templates = TemplateVariables()
        let tasks = builder.graph.tasks
        for id in selection {
            // Most tasks have neither: the environment (a copy of opsrun's) is made only for those
            // that do, and the others cost a scan of their values' bytes, no allocation (nor a
            // copy of the task: its fields are read in place).
            guard !tasks[id].requires.isEmpty || tasks[id].environment.contains(where: { Interpolation.mayRequire($0.value) })
                || tasks[id].directory.map({ Interpolation.mayRequire($0.value) }) == true
                || tasks[id].sources.contains(where: { Interpolation.mayRequire($0.value) })
                || tasks[id].outputs.contains(where: { Interpolation.mayRequire($0.value) })
                || tasks[id].depfile.map({ Interpolation.mayRequire($0.value) }) == true
            else { continue }
            let task = tasks[id]
            let name = task.instance?.task ?? task.name
            func report(_ diagnostic: Diagnostic) {
                if task.instance == nil || seen.insert(diagnostic).inserted { diagnostics.append(diagnostic) }
            }
            var failures: [ExpansionFailure] = []
            let values: TaskVariables
            if let instance = task.instance, TemplateVariables.isShared(task), checkedEnvironments.contains(instance.task) {
                values = templates.variables(of: task, builder.environment)
            } else {
                if let instance = task.instance, TemplateVariables.isShared(task) { checkedEnvironments.insert(instance.task) }
                values = builder.environment.taskVariables(
                    forTask: task.name, taskEnvironment: task.environment, instance: task.instance
                ) { failures.append($0) }
            }
            for failure in failures {
                let what = "the value of '\(failure.entry ?? "")' in 'env' of task '\(name)'"
                report(diagnostic(failure, what: what, text: text(failure.location.file)))
            }
            for (key, list) in [("dir", [task.directory].compactMap { $0 }), ("sources", task.sources), ("outputs", task.outputs),
                ("depfile", [task.depfile].compactMap { $0 })]
            {
                for template in list {
                    do {
                        _ = try values.expand(template.value)
                    } catch {
                        let failure = ExpansionFailure(template: template.value, location: template.location, problem: error)
                        report(diagnostic(failure, what: "'\(key)' of task '\(name)'", text: text(failure.location.file)))
                    }
                }
            }
            // The root's `dotenv` files, and those of the included manifests the task is in.
            let dotenvFiles = (manifest.dotenvFiles + manifest.namespaces.filter { name.hasPrefix($0.name + ":") }
                .flatMap { $0.dotenvFiles }).map { $0.value }
            if let missing = missingRequirement(of: task, named: name, values: values, dotenvFiles: dotenvFiles) {
                report(missing)
            }
        }
        return diagnostics.sorted(by: Diagnostic.byPlace)
    }

    static func diagnostic(_ failure: ExpansionFailure, what: String, text: String?) -> Diagnostic {
        .error(
            failure.problem.message(in: what),
            at: ExpansionPlace.locate(failure.problem, in: failure.template, at: failure.location, text: text))
    }

    /// `task 'deploy' requires DEPLOY_TOKEN, REGION, which are not set; ...`, at the first missing
    /// one; nil when all are set.
    /// An instance's own variables (`SRC` of `compile[src/a.c]`) count as set. `name`: the task
    /// as the message names it (an instance's task).
    static func missingRequirement(
        of task: TaskSpec, named name: String, values: TaskVariables, dotenvFiles: [String]
    ) -> Diagnostic? {
        // opsrun keeps its own settings from every task, so requiring one can never be met.
        if let setting = task.requires.first(where: { OpsrunSettings.contains($0.value) }) {
            return .error(
                "task '\(name)' requires \(setting.value), one of opsrun's own settings, which never reach a task "
                    + "(a cache token in a task's environment would be printed into its logs); pass what the task "
                    + "needs under a name of its own (env: { CACHE_URL: ... })",
                at: setting.location)
        }
        var missing: [Located<String>] = []
        for variable in task.requires where (values[variable.value] ?? "").isEmpty {
            if !missing.contains(where: { $0.value == variable.value }) { missing.append(variable) }
        }
        guard let first = missing.first else { return nil }
        let unset = missing.filter { values[$0.value] == nil }.count
        let one = missing.count == 1
        let state = unset == missing.count ? "not set" : unset == 0 ? "empty" : "not set or empty"
        let dotenv = dotenvFiles.isEmpty ? "a dotenv file" : "a dotenv file (\(dotenvFiles.joined(separator: ", ")))"
        let names = missing.map { $0.value }.joined(separator: ", ")
        // Set empty by the task's own `env` (or its manifest's, in an included one), which comes
        // after the environment and the dotenv files: only that entry or an argument can help.
        if let entry = task.environment.last(where: { $0.name == first.value }), values[first.value] == "" {
            return .error(
                "task '\(name)' requires \(names), which \(one ? "is" : "are") \(state); \(first.value) is set empty by "
                    + "env: at \(entry.location), which the environment and dotenv files do not override; change it there, "
                    + "or pass a NAME=VALUE argument (\(first.value)=...)",
                at: first.location)
        }
        return .error(
            "task '\(name)' requires \(names), which \(one ? "is" : "are") \(state); set \(one ? "it" : "them") in the "
                + "environment, \(dotenv), env:, or as \(one ? "a NAME=VALUE argument" : "NAME=VALUE arguments") (\(first.value)=...)",
            at: first.location)
    }
}
