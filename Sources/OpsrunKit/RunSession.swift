import OpsrunCore
import OpsrunEngine
import OpsrunManifest
import OpsrunGraph
import OpsrunIncremental
import OpsrunPlan
import OpsrunReport
/// One run of a project: the tasks selected, turned into operations, then planned or executed.
public struct RunSession {
    public let project: Project
    public let invocation: Invocation
    /// The project's tasks with `each` expanded: `selection` holds ids of `instances.graph`.
    public let instances: TaskInstances
    /// Selected task ids in manifest order; `specs[i]` is task `selection[i]`.
    public let selection: [Int]
    public let specs: [OperationSpec]
    public let configuration: EngineConfiguration
    let operationBuilder: OperationBuilder
    /// The up-to-date bookkeeping and the tasks it knows, when any selected task declares
    /// `sources`, `outputs` or a `depfile` (otherwise every task runs and `.opsrun/` is not even created).
    /// Opened first, so the stats of a no-op run's files are under way while the rest is built.
    let incremental: (run: IncrementalRun, tasks: [IncrementalTaskSpec])?
    /// How long each task took last time: the queue's critical path weighs them (issue 15).
    let durations: TaskDurations
    /// opsrun's own environment (the output cache's settings read it).
    let environment: [String: String]

    /// `preloadedState`: the state, opening on another thread since the manifest was found.
    public init(
        project: Project, invocation: Invocation, environment: [String: String],
        preloadedState: StatePreload? = nil
    ) throws(ProjectError) {
        self.project = project
        self.invocation = invocation
        self.environment = environment
        let builder = try Self.environmentBuilder(of: project, invocation: invocation, environment: environment)
        instances = try TaskInstances(project: project, environment: builder)
        let roots = try instances.roots(named: invocation.targets)
        selection = instances.graph.closure(of: roots)
        var operationBuilder = OperationBuilder(
            graph: instances.graph, manifest: project.manifest, environment: builder,
            buildsEnvironments: invocation.action != .dryRun)
        if !invocation.taskArguments.isEmpty {
            let ids = try Self.argumentsTasks(of: instances.graph, roots: roots, named: !invocation.targets.isEmpty)
            for id in ids { operationBuilder.arguments[id] = invocation.taskArguments }
        }
        // Before anything starts (and for a plan too): a run that cannot have what it requires,
        // or needs an `each` task whose values could not be made, is a usage error, exit 2, as a
        // bad manifest is; all such errors at once.
        var problems = RequiredVariables.problems(selection: selection, builder: operationBuilder) { project.text(of: $0) }
        // `${OUTDIR}/x` with OUTDIR unset is `/x`: never a path to write at, or read from, by mistake.
        let unsetPrefixes = UnsetPathPrefixes.problems(selection: selection, builder: operationBuilder)
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
        if !project.manifest.rootReferences.isEmpty {
            try Self.checkRootReferences(of: project, graph: instances.graph, selection: selection, invocation: invocation)
        }
        self.operationBuilder = operationBuilder
        incremental = try Self.openIncremental(
            project: project, graph: instances.graph, selection: selection, builder: operationBuilder,
            force: invocation.force, preloaded: preloadedState, runs: invocation.action == .run)
        durations = TaskDurations(
            stateDirectory: StateDirectory.path(forManifestIn: project.manifest.directory),
            recordNames: StateRecordNames(manifestPath: project.source.path))
        let (specs, queueBounds) = operationBuilder.operations(for: selection, incremental: incremental?.tasks)
        self.specs = specs
        configuration = EngineConfiguration(
            maxConcurrentOperationCount: invocation.jobs, queueBounds: queueBounds,
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

    /// The `-n` plan: the engine's order with a runner that starts nothing, marking the tasks
    /// that are up to date; `--explain` reasons and state warnings go to `status`.
    /// `kept`: where the plan's values go, when the caller exits without freeing them.
    public func planText(
        format: OutputFormat, status: Status, keepingUntilExit kept: KeptUntilExit? = nil
    ) throws(Diagnostic) -> String {
        warnOfUnsetReferences(status: status)
        noteTasksWithoutInstances(status: status)
        let gate = upToDateGate(recording: false, status: status)
        let checker: UpToDateChecking? = gate ?? (invocation.explain ? ExplainsAlwaysRuns(specs: specs, status: status) : nil)
        let plan = DryRunPlanner.plan(
            specs: specs, taskIDs: selection, configuration: configuration, upToDate: checker, costs: estimatedCosts)
        gate?.finish()
        defer { kept?.keep(plan, gate as Any) }
        let upToDate = Set((gate?.upToDate ?? []).map { selection[$0] })
        var depfiles: [Int: PlanDepfile] = [:]
        if let gate, let tasks = incremental?.tasks {
            for (index, inputs) in gate.depfileInputs {
                depfiles[selection[index]] = PlanDepfile(path: tasks[index].depfile ?? "", inputs: inputs)
            }
        }
        return try PlanPrinter.render(
            plan, of: instances.graph, format: format, upToDate: upToDate, arguments: operationBuilder.arguments,
            depfiles: depfiles, shownCommands: { [operationBuilder] in operationBuilder.shownCommands(of: $0) })
    }

    /// Each operation's expected cost, from the durations recorded, and for a task never recorded
    /// the size of its sources: asked by the engine only when something must run.
    var estimatedCosts: () -> [UInt64] {
        { [specs, durations, incremental] in
            OperationCosts.estimate(
                specs: specs, recorded: specs.map { durations.microseconds(of: $0.name) },
                sourceBytes: { incremental?.tasks[$0].sourceBytes })
        }
    }

    /// `${NAME}` of a variable that is not set, in the manifest's `env` and in the selected
    /// tasks' `env` and paths: a warning each (`UnsetReferences`).
    func warnOfUnsetReferences(status: Status) {
        let warnings = UnsetReferences.warnings(selection: selection, builder: operationBuilder)
            + HiddenVariables.warnings(selection: selection, builder: operationBuilder)
        for warning in warnings.sorted(by: Diagnostic.byPlace) {
            status.warning(warning.description)
        }
    }

    /// With `-v`, one line for each selected `each` task that has no instances, saying why.
    func noteTasksWithoutInstances(status: Status) {
        guard invocation.verbosity == .verbose, !instances.empty.isEmpty else { return }
        let selected = Set(selection)
        for (task, reason) in instances.empty where selected.contains(task) {
            status.note("\(instances.graph.names[task]): no instances: \(reason)")
        }
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
    public func joinBackgroundWork() { incremental?.run.stopPrefetch() }

    /// The project's tasks with `each` expanded, for `--list` and `--graph` (a run makes its own).
    public static func instances(
        of project: Project, invocation: Invocation, environment: [String: String]
    ) throws(ProjectError) -> TaskInstances {
        try TaskInstances(
            project: project, environment: environmentBuilder(of: project, invocation: invocation, environment: environment))
    }

    private static func openIncremental(
        project: Project, graph: TaskGraph, selection: [Int], builder: OperationBuilder, force: Bool,
        preloaded: StatePreload?, runs: Bool
    ) throws(ProjectError) -> (run: IncrementalRun, tasks: [IncrementalTaskSpec])? {
        let directory = StateDirectory.path(forManifestIn: project.manifest.directory)
        let tasks = graph.tasks
        guard selection.contains(where: { !tasks[$0].sources.isEmpty || !tasks[$0].outputs.isEmpty || tasks[$0].depfile != nil })
        else {
            // A state opened ahead of need and not wanted is let go untouched: a run that uses no
            // state writes none.
            preloaded?.take()?.close(compacting: false)
            return nil
        }
        let specs = builder.incrementalSpecs(for: selection)
        let problems = (EmptyPaths.problems(of: specs, selection: selection, graph: graph)
            + SharedOutputs.problems(of: specs, selection: selection, graph: graph)).sorted(by: Diagnostic.byPlace)
        if !problems.isEmpty {
            preloaded?.take()?.close(compacting: false)
            // An unset variable is the usual cause of an empty or shared path: said beside it.
            let causes = UnsetReferences.warnings(selection: selection, builder: builder)
            throw ProjectError(diagnostics: (problems + causes).sorted(by: Diagnostic.byPlace), sources: project.sourceTexts)
        }
        // Taken when needed, once the specs are made: the state goes on opening (and statting the
        // files it knows) meanwhile rather than holding up the specs.
        func store() -> StateStore? {
            guard let store = preloaded?.take() else { return nil }
            if store.directory == directory { return store }
            store.close(compacting: false)
            return nil
        }
        let run = IncrementalRun(
            stateDirectory: directory, force: force, tasks: specs,
            recordNames: StateRecordNames(manifestPath: project.source.path), store: store,
            creatingState: runs)
        return (run, specs)
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
