import OpsrunCore
import OpsrunReport

extension RunPrinter.Options {
    /// The options an invocation asks for, in this environment, with the run's output on a
    /// terminal or not.
    public static func resolve(
        _ invocation: Invocation, environment: OutputEnvironment, isTerminal: Bool
    ) -> RunPrinter.Options {
        RunPrinter.Options(
            // Under GitHub Actions a task's lines are printed bare, in a fold, so that a problem
            // matcher (`file:line:col: error`) reads them (docs/manual/output-and-reports.md).
            outputMode: invocation.outputMode ?? (environment.githubActions ? .grouped : .prefixed),
            verbosity: invocation.verbosity,
            style: TerminalStyle.resolve(
                invocation.color, environment: environment, isTerminal: isTerminal),
            isTerminal: isTerminal, githubActions: environment.githubActions,
            temporaryDirectory: environment.temporaryDirectory)
    }
}
