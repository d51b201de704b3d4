import OpsrunCore
import OpsrunEngine

/// `--report FILE` (docs/manual/output-and-reports.md): the run as JSON, one object per task, for CI steps and tools.
///
/// Field names are stable; docs/manual/output-and-reports.md documents each. Times are UTC ISO 8601 to the
/// millisecond, durations whole milliseconds (the difference of the two times as written); absent
/// values are `null`, never left out.
public enum RunRecordJSON {
    /// The layout's version: raised only when a field changes meaning or goes away.
    public static let formatVersion = 1

    public static func render(_ run: FinishedRun) -> String {
        let report = run.report
        let runStart = run.clock.startMonotonic
        let tasks = report.operations.indices.map { task($0, of: run) }
        // The summary's numbers: every task in exactly one count, groups (which run nothing) in none.
        let counts = report.taskCounts(of: run.specs)
        let document = OrderedJSON.object([
            ("version", .int(formatVersion)),
            ("opsrun", .string(OpsrunVersion.current)),
            ("manifest", .string(run.manifest)),
            ("start", .string(run.clock.timestamp(of: runStart))),
            ("end", .string(run.clock.timestamp(of: run.endMonotonic))),
            ("duration_ms", .int(run.clock.milliseconds(from: runStart, to: run.endMonotonic))),
            ("exit_code", .int(Int(report.exitCode.rawValue))),
            ("signal", .optional(report.signal.map(SignalName.of))),
            ("stopped_after", .optional(report.stoppedAfterFailure.map { report.operations[$0].name })),
            ("counts", .object([
                ("succeeded", .int(counts.succeeded)),
                ("failed", .int(counts.failed)),
                ("failed_allowed", .int(counts.failedAllowed)),
                ("cancelled", .int(counts.cancelled)),
                ("not_run", .int(counts.notRun)),
                ("up_to_date", .int(counts.upToDate)),
                ("stopped", .int(counts.stopped)),
                ("restored", .int(counts.restored)),
                ("interrupted", .int(counts.interrupted)),
            ])),
            ("tasks", .array(tasks)),
        ])
        return document.rendered
    }

    private static func task(_ index: Int, of run: FinishedRun) -> OrderedJSON {
        let record = run.report.operations[index]
        let span = run.span(index)
        var exitStatus: OrderedJSON = .null
        var signal: OrderedJSON = .null
        if let result = record.lastResult {
            switch result.termination {
            case .exited(let code): exitStatus = .int(Int(code))
            case .signaled(let number): signal = .string(SignalName.of(number))
            }
        }
        return .object([
            ("name", .string(record.name)),
            ("state", .string(run.stateName(index))),
            ("exit_status", exitStatus),
            ("signal", signal),
            ("timed_out", .bool(record.lastResult?.timedOut ?? false)),
            ("start", .optional(span.map { run.clock.timestamp(of: $0.start) })),
            ("end", .optional(span.map { run.clock.timestamp(of: $0.end) })),
            ("duration_ms", span.map { .int(run.clock.milliseconds(from: $0.start, to: $0.end)) } ?? .null),
            ("attempts", .int(record.attempts)),
            ("reason", .optional(run.reason(index))),
            ("caused_by", .optional(run.cause(index).map { run.report.operations[$0].name })),
            ("service", .bool(run.specs[index].isService)),
            ("ready", .optional(record.readyNanoseconds.map { run.clock.timestamp(of: $0) })),
            ("ready_ms", span.flatMap { span in
                record.readyNanoseconds.map { .int(run.clock.milliseconds(from: span.start, to: max(span.start, $0))) }
            } ?? .null),
            ("cleanup_failure", .optional(record.lastResult?.cleanupFailure.map(OutcomeText.cleanup))),
        ])
    }

}
