import OpsrunCore
import OpsrunEngine
/// The end of a run (docs/manual/running.md): the counts, then what went wrong, task by task.
///
/// ```
/// 0 succeeded, 1 failed, 2 cancelled, 1 not run
/// FAILED   compile   exit 2 after 1.3s
///   cancelled  link      prerequisite 'compile' failed
///   cancelled  package   prerequisite 'link' was cancelled (compile)
/// NOT RUN  docs      the run stopped after 'compile' failed (use -k to keep going)
/// ```
/// - The counts line always says how many succeeded (groups, which run nothing, are not counted); the other counts appear only
///   when not zero, in this order: failed, failed (allowed), interrupted, cancelled, not run, up to
///   date.
/// - Then, in this order: allowed failures (`WARNING`), each failure (`FAILED`, in manifest order)
///   with the tree of tasks it cancelled, tasks that did not start because the run stopped
///   (`NOT RUN`), and an interrupt (`INTERRUPTED by SIGINT`) with the tasks it cut short.
/// - The cancelled tree is nested two spaces per level, where a task that is the only one its
///   prerequisite cancelled stays at that prerequisite's level: a chain reads as a list (each
///   reason names the link before it), and only a branching tree moves right.
/// - Names are padded to one column width: the longest name shown, at least 8, plus 2.
/// - Each list stops after `maxLinesPerList` lines with `… and N more`, so a 100,000-task chain of
///   cancellations prints 51 lines.
public enum SummaryPrinter {
    public static let maxLinesPerList = 50

    public static func render(_ report: RunReport, specs: [OperationSpec], style: TerminalStyle)
        -> String
    {
        render(report, specs: specs, style: style, limit: maxLinesPerList)
    }

    static func render(
        _ report: RunReport, specs: [OperationSpec], style: TerminalStyle, limit: Int
    ) -> String {
        var builder = SummaryRows(report: report, specs: specs, limit: limit)
        builder.addServicesAndCleanups()
        builder.addWarnings()
        builder.addFailures()
        builder.addNotRun()
        builder.addInterrupt()
        // Only a run with services stopped looks for those `--watch` kept up.
        let kept = report.counts.stopped == 0 ? 0 : report.operations.count { $0.lastResult?.keptRunning == true }
        return countsLine(report.taskCounts(of: specs), style, keptRunning: kept) + builder.text(style)
    }

    /// `3 succeeded, 1 failed, 1 failed (allowed), 2 cancelled, 1 not run, 4 up to date`.
    static func countsLine(_ counts: RunCounts, _ style: TerminalStyle, keptRunning: Int = 0) -> String {
        var parts = ["\(counts.succeeded) succeeded"]
        if counts.failed > 0 { parts.append(style.red("\(counts.failed) failed")) }
        if counts.failedAllowed > 0 {
            parts.append(style.yellow("\(counts.failedAllowed) failed (allowed)"))
        }
        if counts.interrupted > 0 { parts.append(style.red("\(counts.interrupted) interrupted")) }
        if counts.cancelled > 0 { parts.append("\(counts.cancelled) cancelled") }
        if counts.notRun > 0 { parts.append("\(counts.notRun) not run") }
        if counts.upToDate > 0 { parts.append("\(counts.upToDate) up to date") }
        let stopped = counts.stopped - keptRunning
        if stopped > 0 { parts.append("\(stopped) service\(stopped == 1 ? "" : "s") stopped") }
        if keptRunning > 0 { parts.append("\(keptRunning) service\(keptRunning == 1 ? "" : "s") kept running") }
        if counts.restored > 0 { parts.append("\(counts.restored) restored") }
        return UTF8Text.joined(parts, separator: ", ") + "\n"
    }
}

/// The lines of a summary after the counts, gathered first so that names share one column.
private struct SummaryRows {
    enum Paint { case plain, red, yellow, dim }

    enum Row {
        /// `FAILED   compile   exit 2 after 1.3s`
        case top(label: String, paint: Paint, name: String, reason: String)
        /// `  cancelled  link      prerequisite 'compile' failed`, indented by `level`.
        case nested(level: Int, name: String, reason: String, label: String = "cancelled")
        /// A line of its own: `  … and 12 more cancelled`, `INTERRUPTED by SIGINT`.
        case text(level: Int, text: String, paint: Paint)
    }

    let report: RunReport
    let specs: [OperationSpec]
    let limit: Int
    var rows: [Row] = []

    init(report: RunReport, specs: [OperationSpec], limit: Int) {
        self.report = report
        self.specs = specs
        self.limit = limit
    }

    private func name(_ index: Int) -> String { report.operations[index].name }

    private func failure(_ index: Int) -> String {
        let operation = report.operations[index]
        return OutcomeText.failure(
            operation.lastResult, attempts: operation.attempts,
            timeoutMilliseconds: specs[index].job.timeoutMilliseconds)
    }

    private func indices(where matches: (OperationState) -> Bool) -> [Int] {
        report.operations.indices.filter { matches(report.operations[$0].state) }
    }

    /// `STOPPED  db  ready after 0.4s, stopped after 3.1s`, and a failed cleanup's warning.
    mutating func addServicesAndCleanups() {
        // A run without services or cleanups looks at nothing more.
        let hasCleanups = specs.contains { !$0.job.cleanupCommands.isEmpty }
        guard report.counts.stopped > 0 || hasCleanups else { return }
        for index in report.operations.indices {
            let operation = report.operations[index]
            if operation.state == .finished(.stopped) {
                let kept = operation.lastResult?.keptRunning == true
                rows.append(
                    .top(
                        label: kept ? "RUNNING" : "STOPPED", paint: .dim, name: name(index),
                        reason: kept ? "kept running for the next run" : OutcomeText.service(operation)))
            }
            if let failure = operation.lastResult?.cleanupFailure {
                rows.append(
                    .top(
                        label: "WARNING", paint: .yellow, name: name(index),
                        reason: OutcomeText.cleanup(failure) + " (the task's result stands)"))
            }
        }
    }

    mutating func addWarnings() {
        let warnings = indices { $0 == .finished(.failedAllowed) }
        for index in warnings.prefix(limit) {
            rows.append(
                .top(
                    label: "WARNING", paint: .yellow, name: name(index),
                    reason: failure(index) + " (allowed to fail)"))
        }
        if warnings.count > limit {
            rows.append(
                .top(
                    label: "WARNING", paint: .yellow, name: "… and \(warnings.count - limit) more",
                    reason: ""))
        }
    }

    mutating func addFailures() {
        // How many tasks each task's failure or cancellation cancelled directly.
        var childCount = [Int](repeating: 0, count: report.operations.count)
        for operation in report.operations {
            if case .cancelled(let cause) = operation.state,
                let parent = cause.immediatePrerequisite
            {
                childCount[parent] += 1
            }
        }
        for tree in report.failureTrees() {
            rows.append(
                .top(
                    label: "FAILED", paint: .red, name: name(tree.failed),
                    reason: failure(tree.failed)))
            // Preorder: a node's parent is the last node seen one level shallower. A chain stays
            // at its level (docs/manual/running.md: link, then package, one under the other), unless a sibling
            // of its head follows: then the chain is indented, or the sibling would read as the
            // chain's next link.
            var levelAtDepth = [0]
            var lastAtDepth = [true]
            var placedChildren: [Int: Int] = [:]
            for node in tree.cancelled.prefix(limit) {
                guard case .cancelled(let cause) = report.operations[node.index].state else {
                    continue
                }
                var level = 1
                var isLastChild = true
                if let parent = cause.immediatePrerequisite {
                    let placed = placedChildren[parent, default: 0] + 1
                    placedChildren[parent] = placed
                    isLastChild = placed == childCount[parent]
                    if node.depth > 1 {
                        let continuesChain = childCount[parent] == 1 && lastAtDepth[node.depth - 1]
                        level = levelAtDepth[node.depth - 1] + (continuesChain ? 0 : 1)
                    }
                }
                if levelAtDepth.count > node.depth {
                    levelAtDepth[node.depth] = level
                    lastAtDepth[node.depth] = isLastChild
                } else {
                    levelAtDepth.append(level)
                    lastAtDepth.append(isLastChild)
                }
                rows.append(
                    .nested(
                        level: level, name: name(node.index),
                        reason: OutcomeText.cancellation(cause, name: name)))
            }
            if tree.cancelled.count > limit {
                rows.append(
                    .text(
                        level: 1, text: "… and \(tree.cancelled.count - limit) more cancelled",
                        paint: .dim))
            }
        }
    }

    mutating func addNotRun() {
        let notRun = indices { if case .cancelled(.runStopped) = $0 { true } else { false } }
        for index in notRun.prefix(limit) {
            guard case .cancelled(let cause) = report.operations[index].state else { continue }
            rows.append(
                .top(
                    label: "NOT RUN", paint: .yellow, name: name(index),
                    reason: OutcomeText.cancellation(cause, name: name)))
        }
        if notRun.count > limit {
            rows.append(
                .top(
                    label: "NOT RUN", paint: .yellow, name: "… and \(notRun.count - limit) more",
                    reason: ""))
        }
    }

    /// `INTERRUPTED by SIGINT`, each task it cut short, and how many had not started.
    mutating func addInterrupt() {
        guard let signal = report.signal else { return }
        rows.append(.text(level: 0, text: "INTERRUPTED by \(SignalName.of(signal))", paint: .red))
        let interrupted = indices { if case .cancelled(.interrupted) = $0 { true } else { false } }
        let cut = interrupted.filter { report.operations[$0].attempts > 0 }
        for index in cut.prefix(limit) {
            guard case .cancelled(let cause) = report.operations[index].state else { continue }
            rows.append(
                .nested(
                    level: 1, name: name(index), reason: OutcomeText.cancellation(cause, name: name),
                    label: "interrupted"))
        }
        if cut.count > limit {
            rows.append(
                .text(level: 1, text: "… and \(cut.count - limit) more interrupted", paint: .dim))
        }
        // Counted as the counts line counts: tasks, not groups.
        let waiting = interrupted.count(where: { report.operations[$0].attempts == 0 && !specs[$0].isGroup })
        if waiting > 0 {
            rows.append(
                .text(
                    level: 1, text: "\(waiting) \(waiting == 1 ? "task" : "tasks") had not started",
                    paint: .dim))
        }
    }

    func text(_ style: TerminalStyle) -> String {
        var longest = 8
        for row in rows {
            switch row {
            case .top(_, _, let name, let reason) where !reason.isEmpty:
                longest = max(longest, name.count)
            case .nested(_, let name, _, _): longest = max(longest, name.count)
            case .top, .text: break
            }
        }
        let width = longest + 2
        func pad(_ text: String, _ to: Int) -> String {
            String(repeating: " ", count: max(to - text.count, 0))
        }
        func paint(_ text: String, _ paint: Paint) -> String {
            switch paint {
            case .plain: text
            case .red: style.red(text)
            case .yellow: style.yellow(text)
            case .dim: style.dim(text)
            }
        }
        var out = ""
        for row in rows {
            switch row {
            case .top(let label, let color, let name, let reason):
                out += paint(label, color) + pad(label, 9)
                out += reason.isEmpty ? name : name + pad(name, width) + reason
            case .nested(let level, let name, let reason, let label):
                out += String(repeating: "  ", count: level) + style.dim(label) + pad(label, 9) + "  "
                out += name + pad(name, width) + reason
            case .text(let level, let text, let color):
                out += String(repeating: "  ", count: level) + paint(text, color)
            }
            out += "\n"
        }
        return out
    }
}
