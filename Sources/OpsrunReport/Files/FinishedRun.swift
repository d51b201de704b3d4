import OpsrunEngine
/// A run that has ended, with everything the report files (docs/manual/output-and-reports.md) are made from, and the words
/// they share with the summary.
public struct FinishedRun {
    public let report: RunReport
    public let specs: [OperationSpec]
    public let recorder: RunRecorder
    public let clock: RunClock
    /// CLOCK_MONOTONIC when the last task ended.
    public let endMonotonic: UInt64
    /// The manifest as the user named it (`Tasksfile.yaml`, `ci/Tasksfile.yaml`).
    public let manifest: String

    public init(
        report: RunReport, specs: [OperationSpec], recorder: RunRecorder, clock: RunClock,
        endMonotonic: UInt64, manifest: String
    ) {
        self.report = report
        self.specs = specs
        self.recorder = recorder
        self.clock = clock
        self.endMonotonic = endMonotonic
        self.manifest = manifest
    }

    /// Whether the task was running when a signal interrupted the run (rather than never started).
    func wasInterrupted(_ index: Int) -> Bool {
        let record = report.operations[index]
        guard case .cancelled(.interrupted) = record.state else { return false }
        return record.attempts > 0
    }

    /// `succeeded`, `failed`, `failed_allowed`, `up_to_date`, `restored`, `stopped`, `cancelled`,
    /// `not_run` or `interrupted` (running when the run was interrupted).
    func stateName(_ index: Int) -> String {
        if wasInterrupted(index) { return "interrupted" }
        return switch report.operations[index].state {
        case .finished(.succeeded): "succeeded"
        case .finished(.failed): "failed"
        case .finished(.failedAllowed): "failed_allowed"
        case .finished(.upToDate): "up_to_date"
        case .finished(.stopped): "stopped"
        case .finished(.restored): "restored"
        case .cancelled(.runStopped): "not_run"
        case .cancelled: "cancelled"
        case .pending, .ready, .executing: preconditionFailure("operation \(index) did not end")
        }
    }

    /// Why it did not succeed, in the summary's words; nil for a success.
    func reason(_ index: Int) -> String? {
        let record = report.operations[index]
        switch record.state {
        case .finished(.failed), .finished(.failedAllowed):
            return OutcomeText.failure(
                record.lastResult, attempts: record.attempts,
                timeoutMilliseconds: specs[index].job.timeoutMilliseconds)
        case .finished(.upToDate):
            return "up to date"
        case .cancelled(let cause):
            return OutcomeText.cancellation(cause) { report.operations[$0].name }
        case .finished(.restored):
            return "restored from the output cache"
        case .finished(.succeeded), .finished(.stopped), .pending, .ready, .executing:
            return nil
        }
    }

    /// The failed task that caused a cancellation (or the stop), if one did.
    func cause(_ index: Int) -> Int? {
        guard case .cancelled(let cause) = report.operations[index].state else { return nil }
        if case .runStopped(let failed) = cause { return failed }
        return cause.rootFailure
    }

    /// From the first attempt's start to the last one's end; nil if none ran.
    func span(_ index: Int) -> (start: UInt64, end: UInt64)? {
        let record = report.operations[index]
        guard let start = record.startNanoseconds, let end = record.endNanoseconds else { return nil }
        return (start, max(start, end))
    }
}
