/// How a task that ran ended, in the words of the live output (end lines, group headers,
/// GitHub Actions annotations).
struct TaskEnd {
    enum Kind { case succeeded, restored, failed, failedAllowed, interrupted, stopped }

    var kind: Kind
    /// `1.2s` for a success; otherwise the reason: `exit 2 after 1.3s`, `interrupted by SIGINT`
    /// (without the duration after several attempts: `exit 1`).
    var detail: String
    /// The reason without its duration, for annotations: `exit 2`.
    var shortDetail: String
    /// Attempts the task made (more than 1 after retries).
    var attempts = 1
    /// A `.stopped` service that `--watch` keeps up for the next run instead.
    var keptRunning = false

    /// `failed`, or `failed after 3 attempts`.
    private var failedWords: String {
        attempts > 1 ? "failed after \(attempts) attempts" : "failed"
    }

    var isFailure: Bool { kind == .failed || kind == .failedAllowed }

    /// `✓ compile 1.2s`, `✗ compile exit 2 after 1.3s`, `⚠ docs failed (allowed): exit 1 after 0.2s`,
    /// `■ compile interrupted by SIGINT`.
    func line(name: String, style: TerminalStyle) -> String {
        switch kind {
        case .succeeded: "\(style.green("✓")) \(name) \(detail)\n"
        case .restored: "\(style.green("↓")) \(name) \(style.dim(detail))\n"
        case .failed:
            "\(style.red("✗")) \(style.bold(name)) \(style.red(attempts > 1 ? result : detail))\n"
        case .failedAllowed: "\(style.yellow("⚠")) \(name) \(style.yellow(result))\n"
        case .interrupted: "\(style.red("■")) \(name) \(detail)\n"
        case .stopped: "\(style.dim("○")) \(name) \(result)\n"
        }
    }

    /// What a group header says after the name: `ok 1.2s`, `failed: exit 2 after 1.3s`.
    var result: String {
        switch kind {
        case .succeeded: "ok \(detail)"
        case .restored: "cached"
        case .failed: "\(failedWords): \(detail)"
        case .failedAllowed: "\(failedWords) (allowed): \(detail)"
        case .interrupted: detail
        case .stopped: keptRunning ? "kept running" : "stopped after \(detail)"
        }
    }

    func coloredResult(_ style: TerminalStyle) -> String {
        switch kind {
        case .succeeded, .restored: style.green(result)
        case .stopped: style.dim(result)
        case .failed, .interrupted: style.red(result)
        case .failedAllowed: style.yellow(result)
        }
    }

    /// A GitHub Actions workflow command that annotates a failure, or `nil`:
    /// `::error title=compile::compile failed: exit 2`.
    func annotation(name: String) -> String? {
        switch kind {
        case .failed:
            "::error title=\(Self.escapeProperty(name))::\(Self.escapeData("\(name) \(failedWords): \(shortDetail)"))\n"
        case .failedAllowed:
            "::warning title=\(Self.escapeProperty(name))::"
                + Self.escapeData("\(name) \(failedWords) (allowed to fail): \(shortDetail)") + "\n"
        case .succeeded, .restored, .interrupted, .stopped: nil
        }
    }

    /// Escapes a workflow command's message, as the Actions toolkit does.
    static func escapeData(_ text: String) -> String {
        text.replacing("%", with: "%25").replacing("\r", with: "%0D").replacing("\n", with: "%0A")
    }

    /// Escapes a workflow command's property (task names may hold `:`).
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacing(":", with: "%3A").replacing(",", with: "%2C")
    }
}

/// The lines of a command as echoed by `-v`: a block's final newline adds no empty line.
func commandLines(_ command: String) -> [Substring] {
    var lines = command.split(separator: "\n", omittingEmptySubsequences: false)
    while lines.count > 1, lines.last!.isEmpty { lines.removeLast() }
    return lines
}
