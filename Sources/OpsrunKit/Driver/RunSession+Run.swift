extension RunSession {
    /// Runs the operations with real processes, printing as they go and a summary at the end.
    public func run(
        standardOutput: FileDescriptorWriter, standardError: FileDescriptorWriter,
        environment: [String: String]
    ) -> ExitCode {
        let options = RunPrinter.Options.resolve(invocation, environment: environment, standardOutput: standardOutput)
        let printer = RunPrinter(specs: specs, options: options, standardOutput: standardOutput, standardError: standardError)
        let runner = ProcessRunner(graceMilliseconds: invocation.graceMilliseconds)
        let report = OperationEngine(specs: specs, configuration: configuration, runner: runner, observer: printer).run()
        // Nothing a task started may outlive opsrun: kill and reap any group still known.
        runner.shutdown()
        printer.finish()
        standardOutput.write(SummaryPrinter.render(report, specs: specs, style: options.style))
        return report.exitCode
    }
}
