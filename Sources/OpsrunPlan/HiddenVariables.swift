import OpsrunCore
import OpsrunGraph
import OpsrunManifest

/// A cacheable task's command that reads a variable set in opsrun's environment but hidden from
/// it by the strict environment (`StrictEnvironment`): a warning at the command, saying how to
/// pass it. Without one, `$FLAVOR` silently expands to nothing where it used to have a value.
public enum HiddenVariables {
    /// One warning per task (an `each` task's instances share their commands), command and name.
    public static func warnings(selection: [Int], builder: OperationBuilder) -> [Diagnostic] {
        let graph = builder.graph
        let environment = builder.environment
        var checkedTasks: Set<String> = []
        var warnings: [Diagnostic] = []
        for id in selection {
            // Most commands mention no variable: they cost a scan of their bytes, read in place
            // (no copy of the task).
            guard graph.tasks[id].commands.contains(where: { UTF8Text.contains(UInt8(ascii: "$"), in: $0.value) })
                || graph.tasks[id].cleanup.contains(where: { UTF8Text.contains(UInt8(ascii: "$"), in: $0.value) })
            else { continue }
            let task = graph.tasks[id]
            guard checkedTasks.insert(task.instance?.task ?? task.name).inserted,
                StrictEnvironment.isCacheable(id, in: graph)
            else { continue }
            let own = StrictEnvironment.ownKeyNames(of: task, environment)
            let patterns = StrictEnvironment.passPatterns(of: task, manifest: builder.manifest)
            for command in task.commands + task.cleanup {
                var mentioned: [String] = []
                _ = ShownCommand.substitute(command.value) { name in
                    if !mentioned.contains(name) { mentioned.append(name) }
                    return nil
                }
                for name in mentioned
                where environment.inherited[name] != nil && name != "OPSRUN_TASK" && !own.contains(name)
                    && !environment.entersEveryKey(name) && !StrictEnvironment.passes(name.utf8[...], patterns)
                {
                    warnings.append(Diagnostic(
                        .warning, at: command.location,
                        "task '\(task.instance?.task ?? task.name)' reads $\(name), which is set in opsrun's environment "
                            + "but hidden from the task: a cacheable task sees only the variables that enter its cache key. "
                            + "To key on it, set it in the task's 'env' (\(name): ${\(name)}); to pass it without, "
                            + "list it in 'pass_env'"))
                }
            }
        }
        return warnings
    }
}
