import OpsrunCore
import OpsrunEngine
/// The only voice of a run while it runs (docs/manual/output-and-reports.md): renders the engine's events as they come.
///
/// - Task output in the `--output` mode: prefixed lines, grouped blocks, or interleaved bytes.
/// - Off a terminal, one line per task start and end: `▶ compile`, `✓ compile 1.2s`,
///   `✗ compile exit 2 after 1.3s`, `⚠ docs failed (allowed): exit 1 after 0.2s`,
///   `↻ compile attempt 2 of 3 (exit 1)`, `■ compile interrupted by SIGINT`. In grouped mode the
///   block's header is the end line.
/// - On a terminal, a status line at the bottom (`[12/40] running: compile, link`) instead of
///   start and end lines; failures, retries and interrupts still get their line above it.
/// - `-q`: only failures (each failed task's output in a block under its header, whatever the
///   mode); `-v`: each command echoed as it starts.
///
/// Groups (tasks without commands) print nothing; cancelled tasks are left to the summary, except
/// tasks that were executing when an interrupt cancelled them.
public final class RunPrinter: RunObserver {
    /// How the run's output is shown.
    public struct Options: Sendable {
        public var outputMode: OutputMode
        public var verbosity: Verbosity
        public var style: TerminalStyle
        /// Standard output is a terminal: a status line instead of start and end lines.
        public var isTerminal: Bool
        /// `GITHUB_ACTIONS=true`: grouped blocks fold, failures are annotated.
        public var githubActions: Bool
        /// Columns for the status line; `nil` asks the terminal (80 when it cannot say).
        public var terminalWidth: Int?
        /// Where grouped output too large for memory spills.
        public var temporaryDirectory: String
        /// With `-v`: each operation's commands as echoed, the variables opsrun sets substituted
        /// (`ShownCommand`); `nil` echoes them as written.
        public var shownCommands: [[String]?]?
        /// The longest partial line kept before it is printed in pieces (prefixed mode).
        var lineLimit = 64 * 1024
        /// Output kept in memory per task before it spills to a temporary file (grouped, `-q`).
        var spoolMemoryLimit = 1 << 20

        public init(
            outputMode: OutputMode = .prefixed, verbosity: Verbosity = .normal,
            style: TerminalStyle = TerminalStyle(enabled: false), isTerminal: Bool = false,
            githubActions: Bool = false, terminalWidth: Int? = nil, temporaryDirectory: String = "/tmp"
        ) {
            self.outputMode = outputMode
            self.verbosity = verbosity
            self.style = style
            self.isTerminal = isTerminal
            self.githubActions = githubActions
            self.terminalWidth = terminalWidth
            self.temporaryDirectory = temporaryDirectory
        }
    }

    private let specs: [OperationSpec]
    private let options: Options
    private let console: Console
    private let renderer: any OutputRenderer
    private var style: TerminalStyle { options.style }
    /// Per executing task: the attempt it is on and when its first attempt started.
    private var live: [LiveTask?]
    /// Executing tasks in start order, for the status line.
    private var running: [Int] = []
    private var ended = 0

    private struct LiveTask {
        var attempt = 1
        var firstStart: UInt64?
    }

    public convenience init(
        specs: [OperationSpec], options: Options, standardOutput: FileDescriptorWriter,
        standardError: FileDescriptorWriter
    ) {
        var options = options
        if options.terminalWidth == nil && options.isTerminal {
            options.terminalWidth = TerminalSize.columns(of: standardOutput.fileDescriptor)
        }
        self.init(specs: specs, options: options, sinks: (standardOutput, standardError))
    }

    init(specs: [OperationSpec], options: Options, sinks: (any OutputSink, any OutputSink)) {
        self.specs = specs
        self.options = options
        live = Array(repeating: nil, count: specs.count)
        let quiet = options.verbosity == .quiet
        let console = Console(
            standardOutput: sinks.0, standardError: sinks.1, width: options.terminalWidth ?? 80,
            hasStatusLine: options.isTerminal && !quiet)
        self.console = console
        // By index, not by element: iterating the specs would copy each whole spec.
        var names: [String] = []
        names.reserveCapacity(specs.count)
        var longest = 0
        for index in specs.indices {
            names.append(specs[index].name)
            if !specs[index].isGroup { longest = max(longest, specs[index].name.count) }
        }
        if quiet {
            renderer = GroupedRenderer(
                console: console, names: names, style: options.style,
                githubActions: options.githubActions,
                onlyFailures: true, memoryLimit: options.spoolMemoryLimit,
                spoolDirectory: options.temporaryDirectory)
        } else {
            switch options.outputMode {
            case .prefixed:
                renderer = PrefixedRenderer(
                    console: console, names: names, padding: longest, style: options.style,
                    lineLimit: options.lineLimit)
            case .grouped:
                renderer = GroupedRenderer(
                    console: console, names: names, style: options.style,
                    githubActions: options.githubActions, onlyFailures: false,
                    memoryLimit: options.spoolMemoryLimit, spoolDirectory: options.temporaryDirectory)
            case .interleaved:
                renderer = InterleavedRenderer(console: console, names: names, style: options.style)
            }
        }
    }

    public func handle(_ event: RunEvent) {
        switch event {
        case .operationStarted(let index, let attempt):
            started(index, attempt: attempt)
        case .commandStarted(let index, let commandIndex):
            if options.verbosity == .verbose {
                let job = specs[index].job
                // Cleanup commands follow the job's own, and are shown as written.
                let command = commandIndex < job.commands.count
                    ? options.shownCommands?[index]?[commandIndex] ?? job.commands[commandIndex]
                    : job.cleanupCommands[commandIndex - job.commands.count]
                renderer.echo(index, command: ArgumentsNote.appended(to: command, job.arguments))
                showStatus()
            }
        case .output(let index, let stream, let bytes):
            renderer.output(index, stream, bytes)
            showStatus()
        case .retrying(let index, let nextAttempt, let previous):
            retrying(index, nextAttempt: nextAttempt, previous: previous)
        case .finished(let index, let outcome, let result):
            ended += 1
            // Up-to-date tasks did nothing to show; the summary counts them (make and ninja are
            // silent about them too).
            guard !specs[index].isGroup, outcome != .upToDate else { return }
            taskEnded(index, end(of: index, outcome, result))
            if let failure = result?.cleanupFailure { cleanupFailed(index, failure) }
        case .serviceReady(let index, _):
            if showsStartAndEndLines {
                console.write(style.green("●") + " \(specs[index].name) ready\n")
                showStatus()
            }
        case .cancelled(let index, let cause):
            ended += 1
            // Only an interrupt cancels an executing task; the rest never started.
            if live[index] != nil, case .interrupted(let signal) = cause {
                let text = "interrupted by \(SignalName.of(signal))"
                taskEnded(index, TaskEnd(kind: .interrupted, detail: text, shortDetail: text))
            }
        case .runStopping(.signal(let signal)):
            if options.verbosity != .quiet {
                console.write(
                    style.red("■")
                        + " interrupted by \(SignalName.of(signal)): stopping running tasks\n")
                showStatus()
            }
        case .runStopping(.failure):
            break
        case .runSuspending:
            // The shell's `Stopped` line and prompt go where the status line was.
            console.clearStatus()
        case .runContinued:
            showStatus()
        }
    }

    /// A line of opsrun's own between task output (a `--explain` reason, a warning), keeping the
    /// status line below it. Nothing in quiet mode unless `evenWhenQuiet`.
    public func note(_ text: String, to stream: OutputStreamKind = .standardOutput, evenWhenQuiet: Bool = false) {
        guard options.verbosity != .quiet || evenWhenQuiet else { return }
        console.write(text + "\n", to: stream)
        showStatus()
    }

    /// Prints what is still held (partial lines of tasks that never ended) and clears the status line.
    public func finish() {
        for index in running {
            renderer.attemptEnded(index)
        }
        console.clearStatus()
    }

    /// The status line's text: `[2/5] running: a, b` (ended tasks of all tasks, groups included).
    var statusText: String {
        let counter = "[\(ended)/\(specs.count)]"
        guard !running.isEmpty else { return counter }
        return counter + " running: " + running.map { specs[$0].name }.joined(separator: ", ")
    }

    private var showsStartAndEndLines: Bool { !options.isTerminal && options.verbosity != .quiet }

    private func started(_ index: Int, attempt: Int) {
        guard !specs[index].isGroup else { return }
        if attempt > 1 {
            live[index]?.attempt = attempt
            return
        }
        live[index] = LiveTask()
        running.append(index)
        if specs[index].interactive { console.statusSuspended = true }
        if showsStartAndEndLines {
            console.write(style.dim("▶") + " \(specs[index].name)\n")
        }
        showStatus()
    }

    private func retrying(_ index: Int, nextAttempt: Int, previous: JobResult) {
        renderer.attemptEnded(index)
        if live[index]?.firstStart == nil { live[index]?.firstStart = previous.startNanoseconds }
        if options.verbosity != .quiet {
            let reason = OutcomeText.attempt(
                previous, timeoutMilliseconds: specs[index].job.timeoutMilliseconds,
                withDuration: false)
            console.write(
                style.yellow("↻")
                    + " \(specs[index].name) attempt \(nextAttempt) of \(specs[index].retries + 1) (\(reason))\n"
            )
        }
        showStatus()
    }

    private func end(of index: Int, _ outcome: OperationOutcome, _ result: JobResult?) -> TaskEnd {
        let attempts = live[index]?.attempt ?? 1
        let timeout = specs[index].job.timeoutMilliseconds
        switch outcome {
        case .restored:
            return TaskEnd(kind: .restored, detail: "(cached)", shortDetail: "(cached)")
        case .succeeded, .upToDate, .stopped:
            let start = live[index]?.firstStart ?? result?.startNanoseconds ?? 0
            let duration = DurationText.elapsed(from: start, to: result?.endNanoseconds ?? start)
            var end = TaskEnd(kind: outcome == .stopped ? .stopped : .succeeded, detail: duration, shortDetail: duration)
            if outcome == .stopped, result?.keptRunning == true { end.keptRunning = true }
            return end
        case .failed, .failedAllowed:
            let short = result.map {
                OutcomeText.attempt($0, timeoutMilliseconds: timeout, withDuration: false)
            }
            let detail = result.map {
                OutcomeText.attempt($0, timeoutMilliseconds: timeout, withDuration: attempts == 1)
            }
            return TaskEnd(
                kind: outcome == .failed ? .failed : .failedAllowed, detail: detail ?? "no result",
                shortDetail: short ?? "no result", attempts: attempts)
        }
    }

    /// `⚠ test cleanup failed: exit 1`: a warning; the task's result stands.
    private func cleanupFailed(_ index: Int, _ failure: CleanupFailure) {
        let text = OutcomeText.cleanup(failure)
        if options.verbosity != .quiet {
            console.write(style.yellow("⚠") + " \(specs[index].name) \(text)\n")
        }
        if options.githubActions {
            let name = specs[index].name
            console.write(
                "::warning title=\(TaskEnd.escapeProperty(name))::\(TaskEnd.escapeData("\(name) \(text)"))\n")
        }
        showStatus()
    }

    private func taskEnded(_ index: Int, _ end: TaskEnd) {
        live[index] = nil
        running.removeAll { $0 == index }
        if specs[index].interactive { console.statusSuspended = false }
        renderer.taskEnded(index, end)
        let name = specs[index].name
        let wanted =
            showsStartAndEndLines
            || (options.verbosity != .quiet && end.kind != .succeeded && end.kind != .stopped)
        if wanted && !renderer.printsTaskEnds {
            console.write(end.line(name: name, style: style))
        }
        if options.githubActions, let annotation = end.annotation(name: name) {
            console.write(annotation)
        }
        showStatus()
    }

    private func showStatus() {
        // Not even the text when it would not be drawn: most runs have no status line at all.
        guard console.canShowStatus else { return }
        console.showStatus(statusText)
    }
}
