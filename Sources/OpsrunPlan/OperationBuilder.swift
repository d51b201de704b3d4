import OpsrunCore
import OpsrunEngine
import OpsrunManifest
import OpsrunGraph
import OpsrunIncremental
/// Turns the selected tasks of a project into the engine's operations: the step from "what the
/// manifest says" to "what the engine runs" (names → indices, environment layered, paths resolved).
public struct OperationBuilder {
    public let graph: TaskGraph
    public let manifest: Manifest
    public let environment: EnvironmentBuilder
    /// False for a plan (`-n`), which starts nothing: each job's environment is a copy of the
    /// whole process environment, 140 MB for 100,000 tasks, that nothing would read.
    public var buildsEnvironments: Bool
    /// `opsrun TASK -- ARG...`: the arguments of the tasks (by id) named before `--` (docs/manual/arguments.md):
    /// the task, or every instance of an `each` task.
    public var arguments: [Int: [String]] = [:]

    public init(
        graph: TaskGraph, manifest: Manifest, environment: EnvironmentBuilder,
        buildsEnvironments: Bool = true
    ) {
        self.graph = graph
        self.manifest = manifest
        self.environment = environment
        self.buildsEnvironments = buildsEnvironments
    }

    /// Operations for `selection` (task ids in manifest order, closed under prerequisites), in the
    /// same order; `specs[i]` is task `selection[i]`. `incremental`: `incrementalSpecs(for:)` of
    /// the same selection, when made; each job then makes the parents of its declared outputs
    /// before its first command (for a run: a plan makes nothing).
    public func operations(
        for selection: [Int], incremental: [IncrementalTaskSpec]? = nil
    ) -> (specs: [OperationSpec], queueBounds: [Int]) {
        var position = [Int](repeating: -1, count: graph.count)
        for (i, id) in selection.enumerated() { position[id] = i }
        var queueIndex: [String: Int] = [:]
        for (i, queue) in manifest.queues.enumerated() { queueIndex[queue.name] = i }

        var specs: [OperationSpec] = []
        specs.reserveCapacity(selection.count)
        var templates = TemplateVariables()
        var strictBlocks = StrictBlocks()
        for (i, id) in selection.enumerated() {
            let task = graph.tasks[id]
            let jobEnvironment: JobEnvironment
            if task.isGroup || !buildsEnvironments {
                jobEnvironment = []
            } else if StrictEnvironment.isCacheable(id, in: graph) {
                jobEnvironment = StrictEnvironment.jobEnvironment(
                    of: task, manifest: manifest, environment, blocks: &strictBlocks)
            } else {
                jobEnvironment = environment.jobEnvironment(
                    forTask: task.name, taskEnvironment: task.environment, instance: task.instance)
            }
            var job = CommandJob(
                id: i, taskName: task.name, commands: task.commands.map { $0.value },
                workingDirectory: workingDirectory(of: task, &templates),
                environment: jobEnvironment,
                timeoutMilliseconds: task.timeoutMilliseconds, qualityOfService: task.qualityOfService,
                interactive: task.interactive, arguments: arguments[id] ?? [])
            if buildsEnvironments, let incremental, !task.isGroup {
                if !task.outputs.isEmpty { job.outputs = incremental[i].outputs }
                job.depfile = incremental[i].depfile
            }
            if !task.cleanup.isEmpty { job.cleanupCommands = task.cleanup.map { $0.value } }
            if let shell = task.shell, shell != .sh {
                job.shell = shell.words
                job.shellPassesTaskName = shell.passesTaskName
            }
            if let service = task.service {
                job.service = ServiceReadiness(
                    probe: service.ready?.value, timeoutMilliseconds: service.readyTimeoutMilliseconds)
            }
            specs.append(OperationSpec(
                name: task.name, prerequisites: graph.prerequisites[id].map { position[$0] },
                priority: task.priority, queue: task.queue.flatMap { queueIndex[$0.value] },
                job: job, retries: task.retries, allowFailure: task.allowFailure,
                interactive: task.interactive))
        }
        return (specs, manifest.queues.map { $0.maxConcurrent })
    }

    /// What the up-to-date bookkeeping needs of each selected task, in the same order as
    /// `operations(for:)`. Variables are expanded in `dir`, `sources`, `outputs` and `depfile`
    /// (whose `${NAME:?}` a run has checked already: `RequiredVariables`).
    public func incrementalSpecs(for selection: [Int]) -> [IncrementalTaskSpec] {
        // Only what the manifest and the command line set defines a task: a changed PATH in the
        // user's shell must not make everything run again.
        // The root's `dotenv` values too: a changed `.env` is a changed definition, whether or not
        // opsrun's environment overrides them (the value counted is the one the commands see).
        let sharedNames = Set(manifest.environment.map { $0.name }).union(environment.overrideNames)
            .union(environment.dotenvNames)
        // A task without `env` of its own sees the shared values (OPSRUN_TASK aside): one array
        // for them all, built once, which also lets fingerprints reuse its digest.
        let sharedDefinition = sharedNames.contains("OPSRUN_TASK")
            ? nil : sharedNames.sorted().map { EnvironmentVariable($0, environment.shared[$0] ?? "") }
        var specs: [IncrementalTaskSpec] = []
        specs.reserveCapacity(selection.count)
        var templates = TemplateVariables()
        var parsed: [String: Interpolation.Template] = [:]
        for id in selection {
            let task = graph.tasks[id]
            func mentionsVariable(_ text: String) -> Bool { UTF8Text.contains(UInt8(ascii: "$"), in: text) }
            let ownDefinition = !task.environment.isEmpty || sharedDefinition == nil || !task.requires.isEmpty
                || environment.hasNamespaceDotenv(forTask: task.name)
            // Made only when needed: for a task with `env`, a copy of the whole environment. Made
            // up front, not on first use from a closure: a variable a closure captures and sets is
            // checked for exclusive access at run time on every use (40,000 checks for 10,000 tasks).
            let variables: TaskVariables? =
                ownDefinition || task.directory.map({ mentionsVariable($0.value) }) == true
                    || task.sources.contains(where: { mentionsVariable($0.value) })
                    || task.outputs.contains(where: { mentionsVariable($0.value) })
                    || task.depfile.map({ mentionsVariable($0.value) }) == true
                ? templates.variables(of: task, environment) : nil
            func expand(_ text: String) -> String {
                guard let variables, mentionsVariable(text) else { return text }
                return variables.expandChecked(text, parsed: &parsed)
            }
            let definition: [EnvironmentVariable]
            if !ownDefinition, let sharedDefinition {
                definition = task.instance.map { Self.adding($0, to: sharedDefinition) } ?? sharedDefinition
            } else {
                let values = variables!
                let names = sharedNames.union(StrictEnvironment.ownKeyNames(of: task, environment))
                definition = names.sorted().map { EnvironmentVariable($0, values[$0] ?? "") }
            }
            // An included manifest's task works in its own directory (docs/manual/includes.md).
            let directory = task.workingDirectory(expandedDir: task.directory.map { expand($0.value) })
            var spec = IncrementalTaskSpec(
                name: task.name, commands: task.commands.map { $0.value }, arguments: arguments[id] ?? [],
                environment: definition,
                directory: directory ?? ".",
                absoluteDirectory: directory.map { FileText.absolute($0, relativeTo: manifest.directory) } ?? manifest.directory,
                sources: task.sources.map { expand($0.value) }, outputs: task.outputs.map { expand($0.value) },
                depfile: task.depfile.map { expand($0.value) }, prerequisites: graph.prerequisites[id].map { graph.names[$0] })
            if task.service != nil { spec.isService = true }
            if !task.cleanup.isEmpty { spec.cleanup = task.cleanup.map { $0.value } }
            if let shell = task.shell, shell != .sh { spec.shell = shell.words + [shell.passesTaskName ? "$0" : ""] }
            specs.append(spec)
        }
        return specs
    }

    /// The commands of task `id` as `-n` and `-v` show them: the variables opsrun sets
    /// substituted (`ShownCommand`) but secrets (`UnshownVariables`), the arguments after `--`
    /// not included; `nil` when they show as written (no `$` in them: no array made, for a plan
    /// of 100,000 tasks).
    public func shownCommands(of id: Int) -> [String]? {
        let task = graph.tasks[id]
        guard task.commands.contains(where: { UTF8Text.contains(UInt8(ascii: "$"), in: $0.value) }) else { return nil }
        var templates = TemplateVariables()
        let values = templates.variables(of: task, environment)
        let own = Set(task.environment.map { $0.name } + (task.instance?.values.map { $0.name } ?? []))
        return task.commands.map { command in
            ShownCommand.substitute(command.value) { name in
                guard name == "OPSRUN_TASK" || own.contains(name) || environment.defines(name, forTask: task.name),
                    !UnshownVariables.contains(name, task: task, manifestEnvironment: manifest.environment)
                else { return nil }
                return values[name]
            }
        }
    }

    /// `definition` (sorted by name) with an instance's variables in their places.
    static func adding(_ instance: TaskInstance, to definition: [EnvironmentVariable]) -> [EnvironmentVariable] {
        var result = definition
        for (name, value) in instance.values {
            let variable = EnvironmentVariable(name, value)
            let at = result.firstIndex { !($0.name < name) } ?? result.endIndex
            if at < result.endIndex, result[at].name == name {
                result[at] = variable
            } else {
                result.insert(variable, at: at)
            }
        }
        return result
    }

    /// The task's `dir` (with `${NAME}` expanded), relative to the manifest's directory (an
    /// included manifest's task's, to its own: `TaskSpec.workingDirectory(expandedDir:)`).
    func workingDirectory(of task: TaskSpec, _ templates: inout TemplateVariables) -> String {
        let base = manifest.directory
        guard task.directory != nil || task.baseDirectory != nil else { return base }
        let dir = task.directory.map { templates.variables(of: task, environment).expandChecked($0.value) }
        return FileText.absolute(task.workingDirectory(expandedDir: dir) ?? ".", relativeTo: base)
    }
}

/// The variables of the instances of one `each` task, made once for them all when its `env` does
/// not depend on which instance it is: 100,000 instances then share one copy of the environment.
struct TemplateVariables {
    /// The `each` task whose instances were asked for last, and its variables when its instances
    /// share them (`nil` when each instance needs its own).
    private var last: (task: String, variables: [String: String]?)?

    mutating func variables(of task: TaskSpec, _ environment: EnvironmentBuilder) -> TaskVariables {
        guard let instance = task.instance, !task.environment.isEmpty else {
            return environment.taskVariables(
                forTask: task.name, taskEnvironment: task.environment, instance: task.instance)
        }
        if last?.task != instance.task {
            let shared = Self.isShared(task)
                ? environment.variables(forTask: instance.task, taskEnvironment: task.environment) : nil
            last = (instance.task, shared)
        }
        guard let shared = last?.variables else {
            return environment.taskVariables(forTask: task.name, taskEnvironment: task.environment, instance: instance)
        }
        return TaskVariables(pinned: instance.values, taskName: task.name, values: shared)
    }

    /// Whether the task's `env` comes out the same for every instance: it neither sets nor
    /// mentions an `each` variable or `OPSRUN_TASK`. Mentions are found as text, whatever form of
    /// `${...}` holds them (`${SRC%.c}`): a false alarm only costs a copy per instance.
    static func isShared(_ task: TaskSpec) -> Bool {
        guard let instance = task.instance else { return true }
        let names = instance.values.map { $0.name } + ["OPSRUN_TASK"]
        return !task.environment.contains { entry in
            names.contains { entry.name == $0 || entry.value.contains($0) }
        }
    }
}
