import OpsrunCore
import OpsrunEngine
import OpsrunGraph
import OpsrunIncremental
import OpsrunManifest

/// One run's tasks, built once when the run starts: the tasks selected, each as an operation, with
/// what the up-to-date bookkeeping needs of it and the places in the manifest its values were
/// written. Indexed by operation from here to the engine, `Reuse` and the reports: operation `i`
/// is task `taskIDs[i]` of `graph`, `operations[i]` to the engine, `reuseTasks[i]` to `Reuse`.
public struct RunPlan {
    /// The project's tasks with `each` expanded; `taskIDs` are ids of its graph.
    public let instances: TaskInstances
    /// By operation: its task's id in `graph`, in manifest order, closed under prerequisites.
    public let taskIDs: [Int]
    public let operations: [OperationSpec]
    /// The queues' bounds, by the manifest's queue order.
    public let queueBounds: [Int]
    /// By operation, the task as the up-to-date bookkeeping sees it; `nil` when no selected task
    /// declares `sources`, `outputs` or a `depfile` (then every task runs, and `.opsrun/` is not
    /// even created).
    public let reuseTasks: [IncrementalTaskSpec]?
    /// What made the operations: each task's commands as `-n` and `-v` show them, its arguments.
    public let builder: OperationBuilder

    public var graph: TaskGraph { instances.graph }

    /// Plans the tasks named in `targets` (the manifest's `default` when empty) and what they
    /// need. `taskArguments`: what followed `--`, for the one task named. `buildsEnvironments`:
    /// false for a plan (`-n`), which starts nothing. Every problem that keeps the run from
    /// starting (a `requires` not met, an `each` without its values, a path an unset variable
    /// made absolute or empty, two tasks writing one file) is thrown at once, in manifest order.
    /// `checkSelection`: the caller's own check of the tasks selected, made after those of their
    /// variables and before those of their paths.
    public init(
        project: Project, environment: EnvironmentBuilder, targets: [String], taskArguments: [String],
        buildsEnvironments: Bool,
        checkSelection: (_ graph: TaskGraph, _ selection: [Int]) throws(ProjectError) -> Void = { _, _ in }
    ) throws(ProjectError) {
        instances = try TaskInstances(project: project, environment: environment)
        let roots = try instances.roots(named: targets)
        taskIDs = instances.graph.closure(of: roots)
        var builder = OperationBuilder(
            graph: instances.graph, manifest: project.manifest, environment: environment,
            buildsEnvironments: buildsEnvironments)
        if !taskArguments.isEmpty {
            let ids = try Self.argumentsTasks(of: instances.graph, roots: roots, named: !targets.isEmpty)
            for id in ids { builder.arguments[id] = taskArguments }
        }
        let selection = taskIDs
        var problems = RequiredVariables.problems(selection: selection, builder: builder) { project.text(of: $0) }
        // `${OUTDIR}/x` with OUTDIR unset is `/x`: never a path to write at, or read from, by mistake.
        let unsetPrefixes = UnsetPathPrefixes.problems(selection: selection, builder: builder)
        if !unsetPrefixes.isEmpty {
            problems += unsetPrefixes
            problems.sort(by: Diagnostic.byPlace)
        }
        if !instances.failures.isEmpty {
            let selected = Set(selection)
            problems += instances.failures.filter { selected.contains($0.task) }.map { $0.diagnostic }
            problems.sort(by: Diagnostic.byPlace)
        }
        if !problems.isEmpty { throw ProjectError(diagnostics: problems, sources: project.sourceTexts) }
        try checkSelection(instances.graph, selection)
        let tasks = instances.graph.tasks
        if selection.contains(where: { !tasks[$0].sources.isEmpty || !tasks[$0].outputs.isEmpty || tasks[$0].depfile != nil }) {
            let specs = builder.incrementalSpecs(for: selection)
            let problems = EmptyPaths.problems(of: specs, selection: selection, graph: instances.graph)
                + SharedOutputs.problems(of: specs, selection: selection, graph: instances.graph)
            if !problems.isEmpty {
                // An unset variable is the usual cause of an empty or shared path: said beside it.
                let causes = UnsetReferences.warnings(selection: selection, builder: builder)
                throw ProjectError(diagnostics: (problems + causes).sorted(by: Diagnostic.byPlace), sources: project.sourceTexts)
            }
            reuseTasks = specs
        } else {
            reuseTasks = nil
        }
        (operations, queueBounds) = builder.operations(for: selection, incremental: reuseTasks)
        self.builder = builder
    }

    /// The tasks whose commands get the arguments after `--` (ids in `graph`, the instances'):
    /// the one root, named or the manifest's single `default`, which must run commands of its
    /// own; an instance of an `each` task (`compile[src/a.c]`); or an `each` task, whose
    /// instances all get them.
    static func argumentsTasks(of graph: TaskGraph, roots: [Int], named: Bool) throws(ProjectError) -> [Int] {
        func usage(_ message: String) -> ProjectError {
            ProjectError(diagnostics: [Diagnostic(at: nil, file: nil, message)], sources: [:])
        }
        let names = roots.map { graph.names[$0] }
        guard roots.count == 1, let id = roots.first else {
            if named { throw usage("only one task may be named before '--', whose commands get the arguments after it; named: \(names.joined(separator: ", "))") }
            throw usage("the arguments after '--' go to one task, but 'default' names \(names.count): \(names.joined(separator: ", ")); name the task before '--'")
        }
        let task = graph.tasks[id]
        if task.each != nil {
            // The group of an `each` task's instances: each instance runs the task's commands.
            let instances = graph.prerequisites[id].filter { graph.tasks[$0].instance != nil }
            if !instances.isEmpty { return instances }
        }
        if task.isGroup {
            throw usage("task '\(names[0])' runs no commands of its own (it only has deps), so the arguments after '--' would go nowhere; name a task that has 'run'")
        }
        return [id]
    }

    // MARK: - By operation

    /// The operation's commands as `-n` and `-v` show them.
    public func shownCommands(ofOperation operation: Int) -> [String]? { builder.shownCommands(of: taskIDs[operation]) }

    /// Where the `source`th `sources` entry of the operation's task is written.
    public func sourceLocation(ofOperation operation: Int, source: Int) -> SourceLocation? {
        graph.tasks[taskIDs[operation]].sources[source].location
    }

    /// Where the operation's task's `depfile` is written.
    public func depfileLocation(ofOperation operation: Int) -> SourceLocation? {
        graph.tasks[taskIDs[operation]].depfile?.location
    }

    /// Where the `output`th `outputs` entry of the task named `name` is written.
    public func outputLocation(ofTaskNamed name: String, output: Int) -> SourceLocation? {
        graph.index[name].map { graph.tasks[$0].outputs[output].location }
    }

    /// Why the operation cannot be cached (`StrictEnvironment.whyNotCacheable`), `nil` when it can.
    public func whyNotCacheable(ofOperation operation: Int) -> String? {
        StrictEnvironment.whyNotCacheable(taskIDs[operation], in: graph)
    }

    // MARK: - Warnings

    /// `${NAME}` of a variable that is not set, in the manifest's `env` and in the selected tasks'
    /// `env` and paths, and a cacheable task's command reading a variable hidden from it: a
    /// warning each, in manifest order.
    public var warnings: [Diagnostic] {
        (UnsetReferences.warnings(selection: taskIDs, builder: builder)
            + HiddenVariables.warnings(selection: taskIDs, builder: builder)).sorted(by: Diagnostic.byPlace)
    }

    /// Each selected `each` task that has no instances, with why.
    public var tasksWithoutInstances: [(name: String, reason: String)] {
        let selected = Set(taskIDs)
        return instances.empty.filter { selected.contains($0.task) }.map { (graph.names[$0.task], $0.reason) }
    }
}
