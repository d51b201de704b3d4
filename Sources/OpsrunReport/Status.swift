import OpsrunCore
import OpsrunEngine

/// The one voice of opsrun, as ninja's `Status`: what the user asked to see (the list, the graph,
/// the plan), errors, warnings, `--explain` reasons, a run's events and its summary all go through
/// here, in order, to the streams the executable handed over. Nothing else in the library writes
/// to the terminal.
///
/// While a run runs, its `RunPrinter` holds the console (the status line, held lines), so warnings
/// and reasons go through it and keep their place among the tasks' output.
public final class Status {
    public let streams: OutputStreams
    public let environment: OutputEnvironment
    /// The run's own output goes to standard error when a report takes standard output
    /// (`--report -`), so that a pipe reads the report alone.
    private var runOutput: FileDescriptorWriter
    private var printer: RunPrinter?

    public init(streams: OutputStreams, environment: OutputEnvironment) {
        self.streams = streams
        self.environment = environment
        runOutput = streams.standardOutput
    }

    /// What the user asked to see: `--list`, `--graph`, `-n`. Written as given (no newline added),
    /// so a large graph can come in pieces.
    public func result(_ text: String) {
        streams.standardOutput.write(text)
    }

    /// An error (a rendered diagnostic, or `error: ...`), one or more lines.
    public func error(_ text: String) {
        say(text, to: .standardError, quietToo: true)
    }

    /// A warning: shown even with `-q`.
    public func warning(_ text: String) {
        say(text, to: .standardError, quietToo: true)
    }

    /// An `--explain` reason ("compile runs: source src/a.c changed"): among a run's output, or
    /// on standard error beside a plan (whose standard output may be JSON).
    public func explain(_ text: String) {
        say(text, to: .standardOutput, quietToo: false)
    }

    /// A line for `-v` (the caller decides that it is wanted): among a run's output, or on
    /// standard error beside a plan.
    public func note(_ text: String) {
        say(text, to: .standardOutput, quietToo: false)
    }

    /// Hands standard output to a report (`--report -`): from now on the run speaks on standard
    /// error.
    public func giveStandardOutputToReport() {
        runOutput = streams.standardError
    }

    /// Whether the run's own output goes to a terminal (status line, colour).
    public var runOutputIsTerminal: Bool { runOutput.isTerminal }

    /// The printer of a run's events, speaking for this status until `runEnded`.
    public func startRun(specs: [OperationSpec], options: RunPrinter.Options) -> RunPrinter {
        let printer = RunPrinter(
            specs: specs, options: options, standardOutput: runOutput, standardError: streams.standardError)
        self.printer = printer
        return printer
    }

    /// Ends the run's printing (partial lines, the status line) and prints its summary.
    public func runEnded(_ report: RunReport, specs: [OperationSpec], style: TerminalStyle) {
        printer?.finish()
        printer = nil
        runOutput.write(SummaryPrinter.render(report, specs: specs, style: style))
    }

    private func say(_ text: String, to stream: OutputStreamKind, quietToo: Bool) {
        let line = text.hasSuffix("\n") ? text : text + "\n"
        if let printer {
            printer.note(String(line.dropLast()), to: stream, evenWhenQuiet: quietToo)
        } else {
            streams.standardError.write(line)
        }
    }
}
