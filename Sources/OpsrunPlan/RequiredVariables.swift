import OpsrunCore
import OpsrunManifest
/// What the environment must hold before a run (or its plan) starts (SPEC §10): every selected
/// task's `requires` variables set and not empty, and every `${NAME:?message}` it expands (in its
/// `env`, `dir`, `sources` and `outputs`, and the manifest's `env`) satisfied. Tasks that are not
/// part of the run need nothing.
public enum RequiredVariables {
    /// Every problem, one diagnostic each, sorted by place; empty when the run may start.
    /// `source`: the manifest's text, to point inside a value; asked for only when there is a problem.
    public static func problems(
        selection: [Int], builder: OperationBuilder, source: () -> String?
    ) -> [Diagnostic] {
        var known: String??
        var text: String? {
            if let known { return known }
            let made = source()
            known = .some(made)
            return made
        }
        var diagnostics: [Diagnostic] = []
        for failure in builder.environment.sharedProblems {
            diagnostics.append(diagnostic(failure, what: "the value of '\(failure.entry ?? "")' in 'env'", text: text))
        }
        let manifest = builder.manifest
        for id in selection {
            let task = builder.graph.tasks[id]
            // Most tasks have neither: the environment (a copy of opsrun's) is made only for those
            // that do, and the others cost a scan of their values' bytes, no allocation.
            guard !task.requires.isEmpty || task.environment.contains(where: { Interpolation.mayRequire($0.value) })
                || task.directory.map({ Interpolation.mayRequire($0.value) }) == true
                || task.sources.contains(where: { Interpolation.mayRequire($0.value) })
                || task.outputs.contains(where: { Interpolation.mayRequire($0.value) })
            else { continue }
            var failures: [ExpansionFailure] = []
            let values = builder.environment.variables(forTask: task.name, taskEnvironment: task.environment) {
                failures.append($0)
            }
            for failure in failures {
                let what = "the value of '\(failure.entry ?? "")' in 'env' of task '\(task.name)'"
                diagnostics.append(diagnostic(failure, what: what, text: text))
            }
            for (key, list) in [("dir", [task.directory].compactMap { $0 }), ("sources", task.sources), ("outputs", task.outputs)] {
                for template in list {
                    do {
                        _ = try Interpolation.expand(template.value) { values[$0] }
                    } catch {
                        let failure = ExpansionFailure(template: template.value, location: template.location, problem: error)
                        diagnostics.append(diagnostic(failure, what: "'\(key)' of task '\(task.name)'", text: text))
                    }
                }
            }
            if let missing = missingRequirement(of: task, values: values, dotenvFiles: manifest.dotenvFiles.map(\.value)) {
                diagnostics.append(missing)
            }
        }
        return diagnostics.sorted { a, b in
            guard let first = a.location, let second = b.location else { return a.location == nil && b.location != nil }
            return first < second
        }
    }

    private static func diagnostic(_ failure: ExpansionFailure, what: String, text: String?) -> Diagnostic {
        .error(
            failure.problem.message(in: what),
            at: ExpansionPlace.locate(failure.problem, in: failure.template, at: failure.location, text: text))
    }

    /// `task 'deploy' requires DEPLOY_TOKEN, REGION, which are not set; ...`, at the first missing
    /// one; nil when all are set.
    static func missingRequirement(of task: TaskSpec, values: [String: String], dotenvFiles: [String]) -> Diagnostic? {
        var missing: [Located<String>] = []
        for variable in task.requires where (values[variable.value] ?? "").isEmpty {
            if !missing.contains(where: { $0.value == variable.value }) { missing.append(variable) }
        }
        guard let first = missing.first else { return nil }
        let unset = missing.filter { values[$0.value] == nil }.count
        let one = missing.count == 1
        let state = unset == missing.count ? "not set" : unset == 0 ? "empty" : "not set or empty"
        let dotenv = dotenvFiles.isEmpty ? "a dotenv file" : "a dotenv file (\(dotenvFiles.joined(separator: ", ")))"
        let names = missing.map(\.value).joined(separator: ", ")
        return .error(
            "task '\(task.name)' requires \(names), which \(one ? "is" : "are") \(state); set \(one ? "it" : "them") in the "
                + "environment, \(dotenv), env:, or as \(one ? "a NAME=VALUE argument" : "NAME=VALUE arguments") (\(first.value)=...)",
            at: first.location)
    }
}
