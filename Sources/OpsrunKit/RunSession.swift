import OpsrunCore
import OpsrunEngine
import OpsrunManifest
import OpsrunGraph
import OpsrunIncremental
import OpsrunPlan
import OpsrunReport
import OpsrunReuse
/// One run of a project: its `RunPlan`, the state its `Reuse` reads, then planned or executed.
public struct RunSession {
    public let project: Project
    public let invocation: Invocation
    /// The selected tasks as operations, built once; indexed by operation throughout.
    public let plan: RunPlan
    public let configuration: EngineConfiguration
    /// The up-to-date bookkeeping, when any selected task declares `sources`, `outputs` or a
    /// `depfile` (`plan.reuseTasks`).
    let incremental: IncrementalRun?
    /// How long each task took last time: the queue's critical path weighs them (issue 15).
    let durations: TaskDurations
    /// opsrun's own environment (the output cache's settings read it).
    let environment: [String: String]

    public var specs: [OperationSpec] { plan.operations }
    public var selection: [Int] { plan.taskIDs }
    public var instances: TaskInstances { plan.instances }

    /// `preloadedState`: the state, opening on another thread since the manifest was found.
    public init(
        project: Project, invocation: Invocation, environment: [String: String],
        preloadedState: StatePreload? = nil
    ) throws(ProjectError) {
        self.project = project
        self.invocation = invocation
        self.environment = environment
        let builder = try Self.environmentBuilder(of: project, invocation: invocation, environment: environment)
        do {
            plan = try RunPlan(
                project: project, environment: builder, targets: invocation.targets,
                taskArguments: invocation.taskArguments, buildsEnvironments: invocation.action != .dryRun
            ) { graph, selection throws(ProjectError) in
                if !project.manifest.rootReferences.isEmpty {
                    try Self.checkRootReferences(of: project, graph: graph, selection: selection, invocation: invocation)
                }
            }
        } catch {
            // A state opened ahead of need and not wanted is let go untouched.
            preloadedState?.take()?.close(compacting: false)
            throw error
        }
        incremental = Self.openIncremental(
            project: project, plan: plan, force: invocation.force, preloaded: preloadedState,
            runs: invocation.action == .run)
        durations = TaskDurations(
            stateDirectory: StateDirectory.path(forManifestIn: project.manifest.directory),
            recordNames: StateRecordNames(manifestPath: project.source.path))
        configuration = EngineConfiguration(
            maxConcurrentOperationCount: invocation.jobs, queueBounds: plan.queueBounds,
            keepGoing: invocation.keepGoing)
    }

    /// A manifest run on its own whose tasks name the root's (`:codegen`, docs/manual/includes.md) runs the tasks
    /// that do not; a run of one that does is a usage error naming the root task that is missing.
    /// The command it suggests is the user's own run (`invocation`) from the including manifest.
    static func checkRootReferences(
        of project: Project, graph: TaskGraph, selection: [Int], invocation: Invocation
    ) throws(ProjectError) {
        let selected = Set(selection.map { graph.tasks[$0].instance?.task ?? graph.names[$0] })
        let rootTasks = project.manifest.tasks.filter { $0.baseDirectory == nil }.map { ":" + $0.name }
        let references = project.manifest.rootReferences.filter { selected.contains($0.task) }
        if references.isEmpty { return }
        // Looked for only now: it loads the manifests above.
        let including = IncludingManifest.find(for: project.source)
        let diagnostics = references.map { reference in
            let name = reference.reference.value
            // Written in the manifest run (a sub-project run on its own, most likely), or in one it
            // includes (a misspelt name, most likely: the manifest run is that file's root).
            let inTopManifest = project.manifest.tasks.first { $0.name == reference.task }?.baseDirectory == nil
            let runFromRoot = including.map {
                ": " + $0.command(targets: invocation.targets, variables: invocation.variables, arguments: invocation.taskArguments)
            } ?? ""
            let why = inTopManifest
                ? "; a name starting with ':' is a task of the root manifest, so a sub-project that uses one runs "
                    + "from the manifest that includes it\(runFromRoot)" : ""
            return Diagnostic.error(
                "task '\(reference.task)' depends on '\(name)', but \(project.source.displayName) has no task '\(name.dropFirst())'"
                    + why + Suggestion.phrase(for: name, in: rootTasks),
                at: reference.reference.location)
        }
        if !diagnostics.isEmpty { throw ProjectError(diagnostics: diagnostics, sources: project.sourceTexts) }
    }

    /// The `-n` plan: the engine's order with a runner that starts nothing, marking the tasks
    /// that are up to date; `--explain` reasons and state warnings go to `status`.
    /// `kept`: where the plan's values go, when the caller exits without freeing them.
    public func planText(
        format: OutputFormat, status: Status, keepingUntilExit kept: KeptUntilExit? = nil
    ) throws(Diagnostic) -> String {
        warnOfUnsetReferences(status: status)
        noteTasksWithoutInstances(status: status)
        let gate = reuse(recording: false, status: status)
        let checker: UpToDateChecking? = gate ?? explainsAlwaysRuns(status: status)
        let order = DryRunPlanner.plan(
            specs: specs, taskIDs: selection, configuration: configuration, upToDate: checker, costs: estimatedCosts)
        gate?.finish()
        defer { kept?.keep(order, gate as Any) }
        let upToDate = Set((gate?.upToDate ?? []).map { selection[$0] })
        var depfiles: [Int: PlanDepfile] = [:]
        if let gate, let tasks = plan.reuseTasks {
            for (index, inputs) in gate.depfileInputs {
                depfiles[selection[index]] = PlanDepfile(path: tasks[index].depfile ?? "", inputs: inputs)
            }
        }
        let builder = plan.builder
        return try PlanPrinter.render(
            order, of: plan.graph, format: format, upToDate: upToDate, arguments: builder.arguments,
            depfiles: depfiles, shownCommands: { builder.shownCommands(of: $0) })
    }

    /// Each operation's expected cost, from the durations recorded, and for a task never recorded
    /// the size of its sources: asked by the engine only when something must run.
    var estimatedCosts: () -> [UInt64] {
        { [specs, durations, plan] in
            OperationCosts.estimate(
                specs: specs, recorded: specs.map { durations.microseconds(of: $0.name) },
                sourceBytes: { plan.reuseTasks?[$0].sourceBytes })
        }
    }

    /// The plan's warnings (`RunPlan.warnings`): unset variables, hidden ones.
    func warnOfUnsetReferences(status: Status) {
        for warning in plan.warnings { status.warning(warning.description) }
    }

    /// With `-v`, one line for each selected `each` task that has no instances, saying why.
    func noteTasksWithoutInstances(status: Status) {
        guard invocation.verbosity == .verbose else { return }
        for (name, reason) in plan.tasksWithoutInstances { status.note("\(name): no instances: \(reason)") }
    }

    /// The environment every task's commands and `${NAME}` start from: opsrun's own, the
    /// `dotenv` files, the manifest's `env` and the `NAME=VALUE` arguments.
    static func environmentBuilder(
        of project: Project, invocation: Invocation, environment: [String: String]
    ) throws(ProjectError) -> EnvironmentBuilder {
        // Every dotenv file's errors at once, the root's first.
        var problems = ProjectError(diagnostics: [], sources: [:])
        // `${NAME}` in a dotenv value sees opsrun's environment first (it wins), never its settings.
        let inherited = environment.filter { !OpsrunSettings.contains($0.key) }
        let rootDotenv = dotenv(project.manifest.dotenvFiles, of: project, lookup: inherited, problems: &problems)
        var namespaceDotenv: [(namespace: String, values: [(name: String, value: String)])] = []
        for namespace in project.manifest.namespaces where !namespace.dotenvFiles.isEmpty {
            namespaceDotenv.append(
                (namespace.name, dotenv(namespace.dotenvFiles, of: project, lookup: inherited, problems: &problems)))
        }
        if !problems.diagnostics.isEmpty { throw problems }
        return EnvironmentBuilder(
            processEnvironment: environment, dotenv: rootDotenv,
            manifestEnvironment: project.manifest.environment, overrides: invocation.variables,
            namespaceDotenv: namespaceDotenv)
    }

    /// Joins the threads the session started (the stat prefetch's), finished or not: before the
    /// session is kept until the process exits (`KeptUntilExit`), on every way out.
    public func joinBackgroundWork() { incremental?.stopPrefetch() }

    /// The project's tasks with `each` expanded, for `--list` and `--graph` (a run makes its own).
    public static func instances(
        of project: Project, invocation: Invocation, environment: [String: String]
    ) throws(ProjectError) -> TaskInstances {
        try TaskInstances(
            project: project, environment: environmentBuilder(of: project, invocation: invocation, environment: environment))
    }

    /// The up-to-date bookkeeping of the plan's tasks, when it has any (`plan.reuseTasks`), on
    /// the state opened ahead (`preloaded`) when there is one.
    private static func openIncremental(
        project: Project, plan: RunPlan, force: Bool, preloaded: StatePreload?, runs: Bool
    ) -> IncrementalRun? {
        guard let tasks = plan.reuseTasks else {
            // A state opened ahead of need and not wanted is let go untouched: a run that uses no
            // state writes none.
            preloaded?.take()?.close(compacting: false)
            return nil
        }
        let directory = StateDirectory.path(forManifestIn: project.manifest.directory)
        func store() -> StateStore? {
            guard let store = preloaded?.take() else { return nil }
            if store.directory == directory { return store }
            store.close(compacting: false)
            return nil
        }
        let run = IncrementalRun(
            stateDirectory: directory, force: force, tasks: tasks,
            recordNames: StateRecordNames(manifestPath: project.source.path), store: store,
            creatingState: runs)
        run.locateOutput = { name, output in plan.outputLocation(ofTaskNamed: name, output: output) }
        return run
    }

    /// The values of those of `files` that exist, in order; a malformed one adds its errors to `problems`.
    static func dotenv(
        _ files: [Located<String>], of project: Project, lookup: [String: String], problems: inout ProjectError
    ) -> [(name: String, value: String)] {
        var values: [(name: String, value: String)] = []
        // A later file's `${NAME}` sees an earlier file's values too.
        var earlier: [String: String] = [:]
        for file in files {
            // Joined, not normalized: the kernel resolves `link/..` as `cat` would.
            let path = file.value.hasPrefix("/") ? file.value : project.manifest.directory + "/" + file.value
            guard FileText.isFile(path), let text = FileText.read(path) else { continue }
            // Named as seen from where opsrun started, as the manifest is (`-C sub`: `sub/.env`).
            let shown = project.source.shownPath(file.value)
            do {
                let read = try DotenvFile.parse(text, file: shown, lookup: { lookup[$0] }, fallback: { earlier[$0] })
                for (name, value) in read { earlier[name] = value }
                values += read
            } catch {
                problems.diagnostics += error.diagnostics
                problems.sources[shown] = text
            }
        }
        return values
    }
}
