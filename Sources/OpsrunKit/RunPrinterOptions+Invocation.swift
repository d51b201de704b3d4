import OpsrunCore
import OpsrunReport

extension RunPrinter.Options {
    /// The options an invocation asks for, in this environment, writing to `standardOutput`.
    public static func resolve(
        _ invocation: Invocation, environment: [String: String],
        standardOutput: FileDescriptorWriter
    ) -> RunPrinter.Options {
        let isTerminal = standardOutput.isTerminal
        return RunPrinter.Options(
            outputMode: invocation.outputMode, verbosity: invocation.verbosity,
            style: TerminalStyle.resolve(
                invocation.color, environment: environment, isTerminal: isTerminal),
            isTerminal: isTerminal, githubActions: environment["GITHUB_ACTIONS"] == "true")
    }
}
