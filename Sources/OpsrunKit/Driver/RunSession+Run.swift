extension RunSession {
    /// Runs the operations with real processes, printing as they go and a summary at the end.
    public func run(
        standardOutput: FileDescriptorWriter, standardError: FileDescriptorWriter,
        environment: [String: String]
    ) -> ExitCode {
        let options = RunPrinter.Options.resolve(invocation, environment: environment, standardOutput: standardOutput)
        let printer = RunPrinter(specs: specs, options: options, standardOutput: standardOutput, standardError: standardError)
        let gate = upToDateGate(
            recording: true,
            explain: invocation.explain ? { printer.note($0) } : nil,
            warn: { printer.note($0.description, to: .standardError, evenWhenQuiet: true) })
        let runner = ProcessRunner(graceMilliseconds: invocation.graceMilliseconds)
        let engine = OperationEngine(
            specs: specs, configuration: configuration, runner: runner, observer: printer, upToDate: gate)
        let report = engine.run()
        // Nothing a task started may outlive opsrun: kill and reap any group still known.
        runner.shutdown()
        gate?.finish()
        printer.finish()
        standardOutput.write(SummaryPrinter.render(report, specs: specs, style: options.style))
        KeptUntilExit.keep(engine, gate as Any, printer, report)
        return report.exitCode
    }

    /// The up-to-date bookkeeping, when any selected task declares `sources` or `outputs`
    /// (otherwise every task runs and `.opsrun/` is not even created).
    func upToDateGate(
        recording: Bool, explain: ((String) -> Void)?, warn: @escaping (Diagnostic) -> Void
    ) -> UpToDateGate? {
        let tasks = project.graph.tasks
        guard selection.contains(where: { !tasks[$0].sources.isEmpty || !tasks[$0].outputs.isEmpty }) else {
            return nil
        }
        let specs = operationBuilder.incrementalSpecs(for: selection)
        // Given the tasks, it stats their files while it reads the state.
        let incremental = IncrementalRun(
            stateDirectory: project.manifest.directory + "/" + StateStore.directoryName, force: invocation.force,
            prefetching: specs)
        return UpToDateGate(
            run: incremental, tasks: specs,
            recording: recording, explain: explain, warn: warn)
    }
}
