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
    /// `sources`, `outputs` or a `depfile` (otherwise every task runs and `.opsrun/` is not even created).
    /// Opened first, so the stats of a no-op run's files are under way while the rest is built.
    let incremental: (run: IncrementalRun, tasks: [IncrementalTaskSpec])?
    /// How long each task took last time: the queue's critical path weighs them (issue 15).
    let durations: TaskDurations

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
        operationBuilder = OperationBuilder(
            graph: project.graph, manifest: project.manifest, environment: builder,
            buildsEnvironments: invocation.action != .dryRun)
        incremental = Self.openIncremental(
            project: project, selection: selection, builder: operationBuilder, force: invocation.force,
            preloaded: preloadedState, runs: invocation.action == .run)
        durations = TaskDurations(
            stateDirectory: StateDirectory.path(forManifestIn: project.manifest.directory),
            recordNames: StateRecordNames(manifestPath: project.source.path))
        let (specs, queueBounds) = operationBuilder.operations(for: selection)
        self.specs = specs
        configuration = EngineConfiguration(
            maxConcurrentOperationCount: invocation.jobs, queueBounds: queueBounds,
            keepGoing: invocation.keepGoing)
    }

    /// The `-n` plan: the engine's order with a runner that starts nothing, marking the tasks
    /// that are up to date; `--explain` reasons and state warnings go to `status`.
    public func planText(format: OutputFormat, status: Status) throws(Diagnostic) -> String {
        let gate = upToDateGate(recording: false, status: status)
        let plan = DryRunPlanner.plan(
            specs: specs, taskIDs: selection, configuration: configuration, upToDate: gate, costs: estimatedCosts)
        gate?.finish()
        defer { KeptUntilExit.keep(plan, gate as Any) }
        let upToDate = Set((gate?.upToDate ?? []).map { selection[$0] })
        var depfiles: [Int: PlanDepfile] = [:]
        if let gate, let tasks = incremental?.tasks {
            for (index, inputs) in gate.depfileInputs {
                depfiles[selection[index]] = PlanDepfile(path: tasks[index].depfile ?? "", inputs: inputs)
            }
        }
        return try PlanPrinter.render(plan, of: project.graph, format: format, upToDate: upToDate, depfiles: depfiles)
    }

    /// Each operation's expected cost, from the durations recorded: asked by the engine only when
    /// something must run.
    var estimatedCosts: () -> [UInt64] {
        { [specs, durations] in
            OperationCosts.estimate(specs: specs, recorded: specs.map { durations.microseconds(of: $0.name) })
        }
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
        guard selection.contains(where: { !tasks[$0].sources.isEmpty || !tasks[$0].outputs.isEmpty || tasks[$0].depfile != nil })
        else {
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
