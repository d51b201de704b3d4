import OpsrunEngine
/// The two streams the run printers write to, and the status line that lives at the bottom of a
/// terminal (on standard output).
///
/// Every write goes through here, so the status line is cleared (`\r\e[K`) before anything else is
/// printed and drawn again only when the cursor is at the start of a line (interleaved output may
/// leave a line half written; drawing then would erase it).
/// Each write is one `write(2)` at once. (Holding lines until the run loop waited saved less than
/// 3 % on every benchmark workload: 2,000 `/bin/true`, 1.03 on the fan-in, 0.99 on the DAG.)
final class Console {
    private let standardOutput: any OutputSink
    private let standardError: any OutputSink
    /// Columns of the terminal; the status line is cut to fit.
    let width: Int
    /// Whether a status line is drawn at all (a terminal, not `-q`).
    let hasStatusLine: Bool
    /// An interactive task owns the terminal: no status line until it ends.
    var statusSuspended = false {
        didSet { if statusSuspended { clearStatus() } }
    }
    private var statusShown = false
    private var statusText = ""
    /// Whether everything written so far ends with a newline.
    private var atLineStart = true

    static let clearLine = "\r\u{1B}[K"

    init(
        standardOutput: any OutputSink, standardError: any OutputSink, width: Int,
        hasStatusLine: Bool
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.width = width
        self.hasStatusLine = hasStatusLine
    }

    func write(_ bytes: [UInt8], to stream: OutputStreamKind) {
        bytes.withUnsafeBytes { write($0, to: stream) }
    }

    func write(_ buffer: UnsafeRawBufferPointer, to stream: OutputStreamKind) {
        guard buffer.count > 0 else { return }
        clearStatus()
        emit(buffer, to: stream)
        atLineStart = buffer[buffer.count - 1] == UInt8(ascii: "\n")
    }

    private func emit(_ buffer: UnsafeRawBufferPointer, to stream: OutputStreamKind) {
        sink(stream).write(buffer)
    }

    private func emit(_ text: String, to stream: OutputStreamKind) {
        var text = text
        text.withUTF8 { emit(UnsafeRawBufferPointer($0), to: stream) }
    }

    func write(_ text: String, to stream: OutputStreamKind = .standardOutput) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), to: stream) }
    }

    /// Whether `showStatus` would draw anything now.
    var canShowStatus: Bool { hasStatusLine && !statusSuspended && atLineStart }

    /// Draws `text` as the status line, replacing the one shown, cut to the terminal's width.
    func showStatus(_ text: String) {
        guard canShowStatus else { return }
        let fitted = Self.fit(text, width: width)
        guard !statusShown || fitted != statusText else { return }
        emit((statusShown ? Self.clearLine : "") + fitted, to: .standardOutput)
        statusShown = true
        statusText = fitted
    }

    func clearStatus() {
        guard statusShown else { return }
        emit(Self.clearLine, to: .standardOutput)
        statusShown = false
    }

    var isStatusShown: Bool { statusShown }

    /// `text` cut to `width - 1` characters (the last column would wrap on some terminals), with
    /// `…` marking the cut.
    static func fit(_ text: String, width: Int) -> String {
        let room = max(width - 1, 2)
        guard text.count > room else { return text }
        return String(text.prefix(room - 1)) + "…"
    }

    private func sink(_ stream: OutputStreamKind) -> any OutputSink {
        stream == .standardOutput ? standardOutput : standardError
    }
}
