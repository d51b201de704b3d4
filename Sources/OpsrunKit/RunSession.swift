import OpsrunCore
import OpsrunEngine
import OpsrunManifest
import OpsrunIncremental
import OpsrunPlan
import OpsrunReport
/// One run of a project: the tasks selected, turned into operations, then planned or executed.
public struct RunSession {
    public let project: Project
    public let invocation: Invocation
    /// Selected task ids in manifest order; `specs[i]` is task `selection[i]`.
    public let selection: [Int]
    public let specs: [OperationSpec]
    public let configuration: EngineConfiguration
    let operationBuilder: OperationBuilder
    /// The up-to-date bookkeeping and the tasks it knows, when any selected task declares
    /// `sources` or `outputs` (otherwise every task runs and `.opsrun/` is not even created).
    /// Opened first, so the stats of a no-op run's files are under way while the rest is built.
    let incremental: (run: IncrementalRun, tasks: [IncrementalTaskSpec])?

    /// `preloadedState`: the state, opening on another thread since the manifest was found.
    public init(
        project: Project, invocation: Invocation, environment: [String: String],
        preloadedState: StatePreload? = nil
    ) throws(ProjectError) {
        self.project = project
        self.invocation = invocation
        let roots = try project.roots(named: invocation.targets)
        selection = project.graph.closure(of: roots)
        let dotenv = try Self.dotenv(of: project)
        let builder = EnvironmentBuilder(
            processEnvironment: environment, dotenv: dotenv,
            manifestEnvironment: project.manifest.environment, overrides: invocation.variables)
        var operationBuilder = OperationBuilder(
            graph: project.graph, manifest: project.manifest, environment: builder,
            buildsEnvironments: invocation.action != .dryRun)
        if !invocation.taskArguments.isEmpty {
            let id = try Self.argumentsTask(of: project, roots: roots, named: !invocation.targets.isEmpty)
            operationBuilder.arguments = [id: invocation.taskArguments]
        }
        // Before anything starts (and for a plan too): a run that cannot have what it requires
        // is a usage error, exit 2, as a bad manifest is.
        let missing = RequiredVariables.problems(selection: selection, builder: operationBuilder) { project.text }
        if !missing.isEmpty { throw ProjectError(diagnostics: missing, sources: [project.source.displayName: project.text]) }
        self.operationBuilder = operationBuilder
        incremental = Self.openIncremental(
            project: project, selection: selection, builder: operationBuilder, force: invocation.force,
            preloaded: preloadedState, runs: invocation.action == .run)
        let (specs, queueBounds) = operationBuilder.operations(for: selection)
        self.specs = specs
        configuration = EngineConfiguration(
            maxConcurrentOperationCount: invocation.jobs, queueBounds: queueBounds,
            keepGoing: invocation.keepGoing)
    }

    /// The task whose commands get the arguments after `--`: the one root, named or the
    /// manifest's single `default`, which must run commands of its own.
    static func argumentsTask(of project: Project, roots: [Int], named: Bool) throws(ProjectError) -> Int {
        func usage(_ message: String) -> ProjectError {
            ProjectError(diagnostics: [Diagnostic(at: nil, file: nil, message)], sources: [:])
        }
        let names = roots.map { project.graph.names[$0] }
        guard roots.count == 1, let id = roots.first else {
            if named { throw usage("only one task may be named before '--', whose commands get the arguments after it; named: \(names.joined(separator: ", "))") }
            throw usage("the arguments after '--' go to one task, but 'default' names \(names.count): \(names.joined(separator: ", ")); name the task before '--'")
        }
        if project.graph.tasks[id].isGroup {
            throw usage("task '\(names[0])' runs no commands of its own (it only has deps), so the arguments after '--' would go nowhere; name a task that has 'run'")
        }
        return id
    }

    /// The `-n` plan: the engine's order with a runner that starts nothing, marking the tasks
    /// that are up to date; `--explain` reasons and state warnings go to `status`.
    public func planText(format: OutputFormat, status: Status) throws(Diagnostic) -> String {
        let gate = upToDateGate(recording: false, status: status)
        let plan = DryRunPlanner.plan(specs: specs, taskIDs: selection, configuration: configuration, upToDate: gate)
        gate?.finish()
        defer { KeptUntilExit.keep(plan, gate as Any) }
        let upToDate = Set((gate?.upToDate ?? []).map { selection[$0] })
        return try PlanPrinter.render(
            plan, of: project.graph, format: format, upToDate: upToDate, arguments: operationBuilder.arguments)
    }

    private static func openIncremental(
        project: Project, selection: [Int], builder: OperationBuilder, force: Bool, preloaded: StatePreload?,
        runs: Bool
    ) -> (run: IncrementalRun, tasks: [IncrementalTaskSpec])? {
        let directory = StateDirectory.path(forManifestIn: project.manifest.directory)
        // A state opened ahead of need and not wanted is let go untouched: a run that uses no state
        // writes none.
        var store = preloaded?.take()
        if let other = store, other.directory != directory {
            other.close(compacting: false)
            store = nil
        }
        let tasks = project.graph.tasks
        guard selection.contains(where: { !tasks[$0].sources.isEmpty || !tasks[$0].outputs.isEmpty }) else {
            store?.close(compacting: false)
            return nil
        }
        let specs = builder.incrementalSpecs(for: selection)
        // Given the tasks, it stats their files while it reads the state (unless it is read already).
        let run = IncrementalRun(
            stateDirectory: directory, force: force, prefetching: specs,
            recordNames: StateRecordNames(manifestPath: project.source.path), store: store,
            creatingState: runs)
        return (run, specs)
    }

    /// The `dotenv` files that exist, in order; a malformed one is a manifest error.
    static func dotenv(of project: Project) throws(ProjectError) -> [(name: String, value: String)] {
        var values: [(name: String, value: String)] = []
        for file in project.manifest.dotenvFiles {
            // Joined, not normalized: the kernel resolves `link/..` as `cat` would.
            let path = file.value.hasPrefix("/") ? file.value : project.manifest.directory + "/" + file.value
            guard FileText.isFile(path), let text = FileText.read(path) else { continue }
            // Named as seen from where opsrun started, as the manifest is (`-C sub`: `sub/.env`).
            let shown = project.source.shownPath(file.value)
            do {
                values += try DotenvFile.parse(text, file: shown)
            } catch {
                throw ProjectError(diagnostics: error.diagnostics, sources: [shown: text])
            }
        }
        return values
    }
}
