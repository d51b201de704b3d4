import OpsrunEngine
/// `--output prefixed`: each whole line of a task's output as it comes, after the task's name
/// padded to the longest name of the run (at most `maxPadding`): `compile | main.c:3: error`.
///
/// Lines are cut per task and stream, so two tasks (or one task's two streams) never mix within a
/// line; a last line without a newline is printed when its attempt ends.
final class PrefixedRenderer: OutputRenderer {
    static let maxPadding = 24

    private let console: Console
    private let names: [String]
    private let style: TerminalStyle
    private let padding: Int
    private let lineLimit: Int
    /// By task index; an array, not a dictionary: it is touched for every task that ends.
    private var live: [LiveOutput?]

    private struct LiveOutput {
        var prefix: [UInt8]
        var standardOutput: LineBuffer
        var standardError: LineBuffer
    }

    /// `padding`: the longest name that prints output (capped at `maxPadding`).
    init(console: Console, names: [String], padding: Int, style: TerminalStyle, lineLimit: Int) {
        self.console = console
        self.names = names
        self.padding = min(padding, Self.maxPadding)
        self.style = style
        self.lineLimit = lineLimit
        live = Array(repeating: nil, count: names.count)
    }

    var printsTaskEnds: Bool { false }

    func output(_ index: Int, _ stream: OutputStreamKind, _ bytes: [UInt8]) {
        let prefix = state(index).prefix
        var chunk: [UInt8] = []
        // All complete lines of one chunk go out in one write.
        func emit(_ line: ArraySlice<UInt8>) {
            chunk += prefix
            chunk += line
            chunk.append(UInt8(ascii: "\n"))
        }
        switch stream {
        case .standardOutput: live[index]!.standardOutput.append(bytes, emit: emit)
        case .standardError: live[index]!.standardError.append(bytes, emit: emit)
        }
        console.write(chunk, to: stream)
    }

    /// `compile | $ cc -c main.c`, in the column of the task's output.
    func echo(_ index: Int, command: String) {
        let prefix = String(decoding: state(index).prefix, as: UTF8.self)
        let lines = commandLines(command).enumerated().map { k, line in
            prefix + style.dim(k == 0 ? "$ " : "  ") + line + "\n"
        }
        console.write(lines.joined())
    }

    func attemptEnded(_ index: Int) {
        flush(index)
    }

    func taskEnded(_ index: Int, _ end: TaskEnd) {
        flush(index)
        live[index] = nil
    }

    /// Prints the partial last lines of both streams, each on its own stream.
    private func flush(_ index: Int) {
        guard let prefix = live[index]?.prefix else { return }
        var out: [UInt8] = []
        var err: [UInt8] = []
        live[index]!.standardOutput.finish { out += prefix + $0 + [UInt8(ascii: "\n")] }
        live[index]!.standardError.finish { err += prefix + $0 + [UInt8(ascii: "\n")] }
        console.write(out, to: .standardOutput)
        console.write(err, to: .standardError)
    }

    /// The task's line state, made on its first use.
    private func state(_ index: Int) -> LiveOutput {
        if let task = live[index] { return task }
        let task = LiveOutput(
            prefix: Array(prefix(names[index]).utf8),
            standardOutput: LineBuffer(maxPending: lineLimit),
            standardError: LineBuffer(maxPending: lineLimit))
        live[index] = task
        return task
    }

    private func prefix(_ name: String) -> String {
        let pad = String(repeating: " ", count: max(padding - name.count, 0))
        return style.cyan(name) + pad + style.dim(" |") + " "
    }
}
