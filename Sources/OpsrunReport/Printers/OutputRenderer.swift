import OpsrunEngine
/// What one `--output` mode does with a task's output (docs/manual/output-and-reports.md). `RunPrinter` owns the rest:
/// start and end lines, retries, the status line.
protocol OutputRenderer: AnyObject {
    /// Whether the renderer prints each task's end itself (a grouped block starts with it).
    var printsTaskEnds: Bool { get }
    func output(_ index: Int, _ stream: OutputStreamKind, _ bytes: [UInt8])
    /// `-v`: the command the task's runner just spawned.
    func echo(_ index: Int, command: String)
    /// An attempt failed and another follows.
    func attemptEnded(_ index: Int)
    /// The task ran and ended; nothing more comes for it.
    func taskEnded(_ index: Int, _ end: TaskEnd)
}

/// `--output interleaved`: bytes go through as they come, to the stream they came on.
final class InterleavedRenderer: OutputRenderer {
    private let console: Console
    private let names: [String]
    private let style: TerminalStyle

    init(console: Console, names: [String], style: TerminalStyle) {
        self.console = console
        self.names = names
        self.style = style
    }

    var printsTaskEnds: Bool { false }

    func output(_ index: Int, _ stream: OutputStreamKind, _ bytes: [UInt8]) {
        console.write(bytes, to: stream)
    }

    /// `compile $ cc -c main.c`; later lines of a multi-line command are indented under the first.
    func echo(_ index: Int, command: String) {
        let lead = style.cyan(names[index]) + " "
        let text = commandLines(command).joined(
            separator: "\n" + String(repeating: " ", count: names[index].count + 3))
        console.write(lead + style.dim("$ ") + text + "\n")
    }

    func attemptEnded(_ index: Int) {}
    func taskEnded(_ index: Int, _ end: TaskEnd) {}
}
