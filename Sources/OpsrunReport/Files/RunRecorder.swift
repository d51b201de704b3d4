import OpsrunEngine
/// What the report files (`--report`, `--junit`, `--trace`, docs/manual/output-and-reports.md) need beyond the `RunReport`:
/// every attempt with its times and result, and the tail of each failed task's output.
///
/// An observer beside the printer; it keeps nothing for a task that succeeded but its attempts.
public final class RunRecorder: RunObserver {
    /// One run of a task's commands.
    public struct Attempt: Sendable, Equatable {
        /// 1 for the first.
        public var number: Int
        public var result: JobResult
    }

    /// By spec index, in order.
    public private(set) var attempts: [[Attempt]]
    /// By spec index, the current attempt's output while a task runs (at most `-j` at once);
    /// only when output is kept.
    private var tails: [OutputTail?]
    /// By spec index, the tail's text once a task has failed (allowed or not): at most
    /// `OutputTail.byteLimit` and a note each, however many fail.
    private var failedOutput: [String?]
    private let keepsOutput: Bool

    /// `keepsOutput`: hold the tail of each task's output (for `--junit`).
    public init(operationCount: Int, keepsOutput: Bool) {
        attempts = Array(repeating: [], count: operationCount)
        tails = Array(repeating: nil, count: keepsOutput ? operationCount : 0)
        failedOutput = Array(repeating: nil, count: keepsOutput ? operationCount : 0)
        self.keepsOutput = keepsOutput
    }

    public func handle(_ event: RunEvent) {
        switch event {
        case .operationStarted(let index, _):
            if keepsOutput { tails[index] = OutputTail() }
        case .output(let index, _, let bytes):
            if keepsOutput { tails[index]?.append(bytes) }
        case .retrying(let index, _, let previous):
            attempts[index].append(Attempt(number: attempts[index].count + 1, result: previous))
        case .finished(let index, let outcome, let result):
            if let result {
                attempts[index].append(Attempt(number: attempts[index].count + 1, result: result))
            }
            guard keepsOutput else { return }
            if outcome == .failed || outcome == .failedAllowed { failedOutput[index] = tails[index]?.text }
            tails[index] = nil
        case .cancelled(let index, let cause):
            // JUnit shows a cancelled task's reason, not its output; but one an interrupt cut
            // short ran, and its output says how far it got.
            guard keepsOutput else { return }
            if case .interrupted = cause { failedOutput[index] = tails[index]?.text }
            tails[index] = nil
        case .commandStarted, .runStopping, .serviceReady, .runSuspending, .runContinued:
            break
        }
    }

    /// The attempts of operation `index`, with the last one of a task an interrupt cut short (its
    /// result is only in the report).
    public func attempts(of index: Int, in report: RunReport) -> [Attempt] {
        var list = attempts[index]
        let record = report.operations[index]
        if case .cancelled(.interrupted) = record.state, let last = record.lastResult,
            list.count < record.attempts
        {
            list.append(Attempt(number: list.count + 1, result: last))
        }
        return list
    }

    /// The end of what operation `index` printed in its last attempt, if it failed (allowed or
    /// not) or an interrupt cut it short, and output was kept.
    public func outputTail(of index: Int) -> String? {
        keepsOutput ? failedOutput[index] : nil
    }
}
