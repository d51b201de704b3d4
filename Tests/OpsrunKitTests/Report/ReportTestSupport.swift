@testable import OpsrunKit
@testable import OpsrunEngine
@testable import OpsrunReport

/// A run ended 2 s after 2026-11-23T10:00:00Z, with `specs` and `records`, the recorder fed
/// `events`; monotonic times in the records are seconds from the run's start (as `result` makes them).
func finishedRun(
    _ specs: [OperationSpec], _ records: [OperationRecord], events: [RunEvent] = [],
    signal: Int32? = nil, stoppedAfter: Int? = nil, keepsOutput: Bool = true, endSeconds: Double = 2
) -> FinishedRun {
    let recorder = RunRecorder(operationCount: specs.count, keepsOutput: keepsOutput)
    for event in events { recorder.handle(event) }
    let report = RunReport(operations: records, signal: signal, stoppedAfterFailure: stoppedAfter)
    return FinishedRun(
        report: report, specs: specs, recorder: recorder,
        clock: RunClock(startMonotonic: 0, startUnixNanoseconds: 1_795_428_000 * 1_000_000_000),
        endMonotonic: UInt64(endSeconds * 1e9), manifest: "Tasksfile.yaml")
}

/// How an operation ended, with its last result's times as its span.
func record(
    _ name: String, _ state: OperationState, attempts: Int = 0, _ result: JobResult? = nil,
    firstStart: Double? = nil
) -> OperationRecord {
    OperationRecord(
        name: name, state: state, attempts: attempts,
        startNanoseconds: firstStart.map { UInt64($0 * 1e9) } ?? result?.startNanoseconds,
        endNanoseconds: result?.endNanoseconds, lastResult: result)
}
