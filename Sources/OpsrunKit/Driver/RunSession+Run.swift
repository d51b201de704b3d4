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
        let runner = ProcessRunner(
            graceMilliseconds: invocation.graceMilliseconds,
            childExits: SignalHandling.childExitSignalBlocked ? .signal : .pidfd)
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

    /// The up-to-date bookkeeping adapted to the engine, when any selected task declares
    /// `sources` or `outputs`; at most once per session.
    func upToDateGate(
        recording: Bool, explain: ((String) -> Void)?, warn: @escaping (Diagnostic) -> Void
    ) -> UpToDateGate? {
        guard let incremental else { return nil }
        return UpToDateGate(
            run: incremental.run, tasks: incremental.tasks,
            recording: recording, explain: explain, warn: warn)
    }
}
