import OpsrunCore
import OpsrunEngine
import OpsrunProcess
import OpsrunReport
extension RunSession {
    /// Runs the operations with real processes, printing as they go and a summary at the end,
    /// then writes the `reports` asked for (SPEC §8).
    /// `host`: what the executable set up for its process (`ProcessHost`); `kept`: where the run's
    /// values go when it ends, when the caller exits without freeing them.
    public func run(
        status: Status, host: ProcessHost, reports: ReportFiles? = nil, keepingUntilExit kept: KeptUntilExit? = nil
    ) -> ExitCode {
        let clock = RunClock.now()
        let options = RunPrinter.Options.resolve(
            invocation, environment: status.environment, isTerminal: status.runOutputIsTerminal)
        let printer = status.startRun(specs: specs, options: options)
        noteTasksWithoutInstances(status: status)
        // Only when a report is asked for: without one, the printer alone hears the events.
        let recorder = reports.map { RunRecorder(operationCount: specs.count, keepsOutput: $0.wantsOutputTails) }
        let observer: RunObserver = recorder.map { RunObservers([printer, $0]) } ?? printer
        let gate = upToDateGate(recording: true, stopsOnSignal: true, status: status)
        let runner = ProcessRunner(
            graceMilliseconds: invocation.graceMilliseconds,
            host: host)
        let engine = OperationEngine(
            specs: specs, configuration: configuration, runner: runner, observer: observer, upToDate: gate,
            costs: estimatedCosts)
        let report = engine.run()
        let ended = MonotonicClock.now()
        // Nothing a task started may outlive opsrun: kill and reap any group still known.
        runner.shutdown()
        gate?.finish()
        recordDurations(of: report)
        status.runEnded(report, specs: specs, style: options.style)
        kept?.keep(engine, gate as Any, printer, report)
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

    /// The up-to-date bookkeeping adapted to the engine, when any selected task declares
    /// `sources` or `outputs`; at most once per session.
    func upToDateGate(
        recording: Bool, stopsOnSignal: Bool = false, status: Status
    ) -> UpToDateGate? {
        guard let incremental else { return nil }
        let (tasks, selection) = (instances.graph.tasks, selection)
        return UpToDateGate(
            run: incremental.run, tasks: incremental.tasks, prerequisites: specs.map(\.prerequisites),
            recording: recording, stopsOnSignal: stopsOnSignal, status: status, explains: invocation.explain,
            locateSource: { task, source in tasks[selection[task]].sources[source].location },
            locateDepfile: { task in tasks[selection[task]].depfile?.location })
    }
}
