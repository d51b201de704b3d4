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
    /// `opsrun TASK -- ARG...`: the arguments of the task (by id) named before `--` (SPEC §10).
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
    /// same order; `specs[i]` is task `selection[i]`.
    public func operations(for selection: [Int]) -> (specs: [OperationSpec], queueBounds: [Int]) {
        var position = [Int](repeating: -1, count: graph.count)
        for (i, id) in selection.enumerated() { position[id] = i }
        var queueIndex: [String: Int] = [:]
        for (i, queue) in manifest.queues.enumerated() { queueIndex[queue.name] = i }

        var specs: [OperationSpec] = []
        specs.reserveCapacity(selection.count)
        for (i, id) in selection.enumerated() {
            let task = graph.tasks[id]
            let job = CommandJob(
                id: i, taskName: task.name, commands: task.commands.map(\.value),
                workingDirectory: workingDirectory(of: task),
                environment: task.isGroup || !buildsEnvironments
                    ? [] : environment.jobEnvironment(forTask: task.name, taskEnvironment: task.environment),
                timeoutMilliseconds: task.timeoutMilliseconds, qualityOfService: task.qualityOfService,
                interactive: task.interactive, arguments: arguments[id] ?? [])
            specs.append(OperationSpec(
                name: task.name, prerequisites: graph.prerequisites[id].map { position[$0] },
                priority: task.priority, queue: task.queue.flatMap { queueIndex[$0.value] },
                job: job, retries: task.retries, allowFailure: task.allowFailure,
                interactive: task.interactive))
        }
        return (specs, manifest.queues.map(\.maxConcurrent))
    }

    /// What the up-to-date bookkeeping needs of each selected task, in the same order as
    /// `operations(for:)`. Variables are expanded in `dir`, `sources` and `outputs`.
    public func incrementalSpecs(for selection: [Int]) -> [IncrementalTaskSpec] {
        // Only what the manifest and the command line set defines a task: a changed PATH in the
        // user's shell must not make everything run again.
        let sharedNames = Set(manifest.environment.map(\.name)).union(environment.overrideNames)
        // A task without `env` of its own sees the shared values (OPSRUN_TASK aside): one array
        // for them all, built once, which also lets fingerprints reuse its digest.
        let sharedDefinition = sharedNames.contains("OPSRUN_TASK")
            ? nil : sharedNames.sorted().map { EnvironmentVariable($0, environment.shared[$0] ?? "") }
        var specs: [IncrementalTaskSpec] = []
        specs.reserveCapacity(selection.count)
        for id in selection {
            let task = graph.tasks[id]
            // The task's variables are a copy of the whole environment: made only when needed.
            var variables: [String: String]?
            func taskVariables() -> [String: String] {
                if let variables { return variables }
                let made = environment.variables(forTask: task.name, taskEnvironment: task.environment)
                variables = made
                return made
            }
            func expand(_ text: String) -> String {
                guard text.utf8.contains(UInt8(ascii: "$")) else { return text }
                let values = taskVariables()
                return Interpolation.expandChecked(text) { values[$0] }
            }
            let definition: [EnvironmentVariable]
            if task.environment.isEmpty, let sharedDefinition {
                definition = sharedDefinition
            } else {
                let values = taskVariables()
                definition = sharedNames.union(task.environment.map(\.name)).sorted()
                    .map { EnvironmentVariable($0, values[$0] ?? "") }
            }
            let directory = task.directory.map { expand($0.value) }
            specs.append(IncrementalTaskSpec(
                name: task.name, commands: task.commands.map(\.value), arguments: arguments[id] ?? [],
                environment: definition,
                directory: directory ?? ".",
                absoluteDirectory: directory.map { FileText.absolute($0, relativeTo: manifest.directory) } ?? manifest.directory,
                sources: task.sources.map { expand($0.value) }, outputs: task.outputs.map { expand($0.value) },
                prerequisites: graph.prerequisites[id].map { graph.names[$0] }))
        }
        return specs
    }

    /// The task's `dir` (with `${NAME}` expanded), relative to the manifest's directory.
    func workingDirectory(of task: TaskSpec) -> String {
        let base = manifest.directory
        guard let dir = task.directory else { return base }
        let variables = environment.variables(forTask: task.name, taskEnvironment: task.environment)
        let expanded = Interpolation.expandChecked(dir.value) { variables[$0] }
        return FileText.absolute(expanded, relativeTo: base)
    }
}
