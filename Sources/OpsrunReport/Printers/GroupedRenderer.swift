import OpsrunEngine
/// `--output grouped`, and `-q` in every mode: a task's whole output, both streams in arrival order,
/// in one block on standard output when it ends, under a header with its result:
///
/// ```
/// ── compile ── failed: exit 2 after 1.3s
/// main.c:3: error: …
/// ```
/// Under GitHub Actions the block is a fold, and the header its title:
/// `::group::compile (failed: exit 2 after 1.3s)` … `::endgroup::`; a task that wrote nothing is
/// one line, `site (ok 0.0s)`, not an empty fold.
/// With `onlyFailures` (`-q`), a task that did not fail has its output dropped.
final class GroupedRenderer: OutputRenderer {
    private let console: Console
    private let names: [String]
    private let style: TerminalStyle
    private let githubActions: Bool
    private let onlyFailures: Bool
    private let memoryLimit: Int
    private let spoolDirectory: String
    private var spools: [Int: Spooled] = [:]

    private struct Spooled {
        var spool: OutputSpool
        var endsWithNewline = true
    }

    init(
        console: Console, names: [String], style: TerminalStyle, githubActions: Bool,
        onlyFailures: Bool, memoryLimit: Int, spoolDirectory: String
    ) {
        self.console = console
        self.names = names
        self.style = style
        self.githubActions = githubActions
        self.onlyFailures = onlyFailures
        self.memoryLimit = memoryLimit
        self.spoolDirectory = spoolDirectory
    }

    var printsTaskEnds: Bool { !onlyFailures }

    func output(_ index: Int, _ stream: OutputStreamKind, _ bytes: [UInt8]) {
        guard let last = bytes.last else { return }
        spools[index, default: Spooled(spool: OutputSpool(memoryLimit: memoryLimit, directory: spoolDirectory))].spool.append(
            bytes)
        spools[index]!.endsWithNewline = last == UInt8(ascii: "\n")
    }

    /// `$ cc -c main.c` inside the block, where it ran.
    func echo(_ index: Int, command: String) {
        endLine(index)
        let text = style.dim("$ ") + commandLines(command).joined(separator: "\n  ") + "\n"
        output(index, .standardOutput, Array(text.utf8))
    }

    /// A failed attempt's unfinished last line must not run into the next attempt's first.
    func attemptEnded(_ index: Int) {
        endLine(index)
    }

    func taskEnded(_ index: Int, _ end: TaskEnd) {
        var spooled = spools.removeValue(forKey: index)
        if onlyFailures && !end.isFailure {
            spooled?.spool.discard()
            return
        }
        let name = names[index]
        if githubActions, spooled == nil {
            // Nothing to fold: a fold with nothing inside only adds a click.
            console.write("\(name) (\(end.result))\n")
            return
        }
        if githubActions {
            console.write("::group::\(name) (\(end.result))\n")
        } else {
            console.write(
                style.dim("──") + " " + style.bold(name) + " " + style.dim("──") + " "
                    + end.coloredResult(style) + "\n")
        }
        if var spooled {
            spooled.spool.drain { console.write($0, to: .standardOutput) }
            if !spooled.endsWithNewline { console.write("\n") }
        }
        if githubActions { console.write("::endgroup::\n") }
    }

    private func endLine(_ index: Int) {
        if let spooled = spools[index], !spooled.endsWithNewline {
            output(index, .standardOutput, [UInt8(ascii: "\n")])
        }
    }
}
