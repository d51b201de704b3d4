import OpsrunCache
import OpsrunCore
import OpsrunEngine
import OpsrunGraph
import OpsrunIncremental
import OpsrunManifest
import OpsrunPlan
import OpsrunProcess
import OpsrunReport
import OpsrunReuse

extension RunSession {
    /// Runs the operations with real processes, printing as they go and a summary at the end,
    /// then writes the `reports` asked for (docs/manual/output-and-reports.md).
    /// `host`: what the executable set up for its process (`ProcessHost`); `kept`: where the run's
    /// values go when it ends, when the caller exits without freeing them. `watchRunner`: under
    /// `--watch`, the runner that keeps services up between runs; it is shut down after the run
    /// unless it keeps one.
    public func run(
        status: Status, host: ProcessHost, reports: ReportFiles? = nil, keepingUntilExit kept: KeptUntilExit? = nil,
        watchRunner: ProcessRunner? = nil
    ) -> ExitCode {
        let clock = RunClock.now()
        var options = RunPrinter.Options.resolve(
            invocation, environment: status.environment, isTerminal: status.runOutputIsTerminal)
        if invocation.verbosity == .verbose { options.shownCommands = specs.indices.map { plan.shownCommands(ofOperation: $0) } }
        let printer = status.startRun(specs: specs, options: options)
        warnOfUnsetReferences(status: status)
        noteTasksWithoutInstances(status: status)
        // Only when a report is asked for: without one, the printer alone hears the events.
        let recorder = reports.map { RunRecorder(operationCount: specs.count, keepsOutput: $0.wantsOutputTails) }
        var observer: RunObserver = recorder.map { RunObservers([printer, $0]) } ?? printer
        let reuse = self.reuse(recording: true, signalPending: SignalHandling.isTerminationSignalPending, status: status)
        if let reuse, let cache = reuseCache(status: status, next: observer) {
            reuse.cache = cache
            observer = cache.logs
        }
        let runner = watchRunner ?? ProcessRunner(
            graceMilliseconds: invocation.graceMilliseconds,
            host: host)
        // A kept service the manifest no longer defines so is stopped before anything starts.
        if let watchRunner, watchRunner.hasKeptServices {
            watchRunner.stopKeptServices(keeping: specs.filter { $0.isService }.map { $0.job })
        }
        let upToDate: UpToDateChecking? = reuse ?? explainsAlwaysRuns(status: status)
        let engine = OperationEngine(
            specs: specs, configuration: configuration, runner: runner, observer: observer, upToDate: upToDate,
            costs: estimatedCosts)
        var report = engine.run()
        let ended = MonotonicClock.now()
        // Nothing a task started may outlive opsrun: kill and reap any group still known (but for
        // services kept up for the next run of `--watch`, which stops them when it ends).
        if !runner.hasKeptServices { runner.shutdown() }
        if report.signal == nil, let signal = runner.signalDuringShutdown { report.signal = signal }
        reuse?.finish()
        if let cache = reuse?.cache?.cache {
            cache.finish()
            if invocation.verbosity == .verbose, cache.restoredCount + cache.storedCount > 0 {
                status.note("output cache \(cache.local.root): \(cache.restoredCount) restored, \(cache.storedCount) stored")
            }
        }
        recordDurations(of: report)
        status.runEnded(report, specs: specs, style: options.style)
        kept?.keep(engine, reuse as Any, printer, report)
        guard let reports, let recorder else { return report.exitCode }
        let finished = FinishedRun(
            report: report, specs: specs, recorder: recorder, clock: clock, endMonotonic: ended,
            manifest: project.source.displayName)
        let problems = reports.write(finished)
        for problem in problems { status.error("error: \(problem)") }
        // A CI step must not pass without the report it asked for.
        return problems.isEmpty || report.exitCode != .success ? report.exitCode : .failure
    }

    /// Keeps how long each task that succeeded took, for the next run's critical path.
    private func recordDurations(of report: RunReport) {
        for (index, operation) in report.operations.enumerated()
        where operation.state == .finished(.succeeded) && !specs[index].isGroup {
            guard let result = operation.lastResult, result.endNanoseconds >= result.startNanoseconds else { continue }
            durations.record(specs[index].name, microseconds: (result.endNanoseconds - result.startNanoseconds) / 1_000)
        }
        durations.save(keeping: Set(instances.graph.names))
    }

    /// The output cache for this run, when it is on and the run has tasks with sources or outputs;
    /// which of them are cacheable is worked out only when one is out of date.
    private func reuseCache(status: Status, next: RunObserver) -> ReuseCache? {
        guard incremental != nil else { return nil }
        let settings = CacheSettings(invocation, environment: environment, workingDirectory: FileText.currentDirectory())
        guard let directory = settings.directory else { return nil }
        // Why each cannot be cached, if it cannot (the one definition, `StrictEnvironment`).
        let plan = plan
        let notCacheable = { plan.taskIDs.indices.map { plan.whyNotCacheable(ofOperation: $0) } }
        // The HTTP client (and its thread) only when a server is named: a run without one pays nothing.
        let remote = settings.remoteURL.map { url in
            { () -> RemoteCacheClient in
                HTTPRemoteCache(
                    url: url, header: settings.remoteHeader,
                    connectTimeout: Int64(min(2_000, settings.remoteTimeoutMilliseconds)),
                    requestTimeout: Int64(settings.remoteTimeoutMilliseconds))
            }
        }
        let cache = OutputCache(
            directory: directory, sizeLimit: settings.sizeLimit, remote: remote, remoteWrites: settings.remoteWrites)
        cache.onUnusableDirectory = { problem in
            status.warning("warning: cache directory \(directory) \(problem); caching is off for this run")
        }
        if let url = settings.remoteURL {
            let shown = HTTPRemoteCache.withoutCredentials(url.hasSuffix("/") ? String(url.dropLast()) : url)
            cache.onRemoteProblem = { problem in
                status.warning("warning: remote cache \(shown): \(problem); going on without it")
            }
        }
        return ReuseCache(
            cache: cache, projectRoot: project.source.directory, notCacheable: notCacheable, restores: !invocation.force,
            next: next, warn: { status.warning($0) })
    }

    /// What decides whether each task runs, when any selected task declares `sources` or
    /// `outputs`; at most once per session. Its words go to `status`.
    func reuse(recording: Bool, signalPending: (() -> Bool)? = nil, status: Status) -> Reuse? {
        guard let incremental, let tasks = plan.reuseTasks else { return nil }
        let plan = plan
        return Reuse(
            run: incremental, tasks: tasks, prerequisites: specs.map { $0.prerequisites },
            recording: recording, signalPending: signalPending,
            reporter: ReuseReporter(
                warning: { status.warning($0) }, error: { status.error($0) }, explain: { status.explain($0) }),
            explains: invocation.explain,
            locateSource: { plan.sourceLocation(ofOperation: $0, source: $1) },
            locateDepfile: { plan.depfileLocation(ofOperation: $0) })
    }

    /// `--explain` in a run with no up-to-date bookkeeping: each task says why it runs.
    func explainsAlwaysRuns(status: Status) -> ExplainsAlwaysRuns? {
        invocation.explain ? ExplainsAlwaysRuns(specs: specs, explain: { status.explain($0) }) : nil
    }
}
