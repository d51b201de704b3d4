import OpsrunEngine
/// The words for how a task ended, shared by the live lines and the summary.
enum OutcomeText {
    /// One attempt's failure: `exit 2 after 1.3s`, `killed by SIGKILL after 0.4s`,
    /// `timed out after 10s`, `could not start: <why>`; without the duration when asked.
    static func attempt(_ result: JobResult, timeoutMilliseconds: Int?, withDuration: Bool = true)
        -> String
    {
        if let why = result.spawnFailure { return "could not start: \(why)" }
        let duration = DurationText.elapsed(
            from: result.startNanoseconds, to: result.endNanoseconds)
        if result.timedOut {
            // The configured limit reads better than the elapsed time, which overshoots it a little.
            return "timed out after "
                + (timeoutMilliseconds.map { DurationText.limit(milliseconds: $0) } ?? duration)
        }
        let what: String
        switch result.termination {
        case .exited(let code): what = "exit \(code)"
        case .signaled(let signal): what = "killed by \(SignalName.of(signal))"
        }
        return withDuration ? "\(what) after \(duration)" : what
    }

    /// A task's failure after all its attempts: `exit 2 after 1.3s`, or with retries
    /// `failed after 3 attempts: exit 1`.
    static func failure(_ result: JobResult?, attempts: Int, timeoutMilliseconds: Int?) -> String {
        guard let result else { return "failed" }
        if attempts > 1 {
            let last = attempt(
                result, timeoutMilliseconds: timeoutMilliseconds, withDuration: false)
            return "failed after \(attempts) attempts: \(last)"
        }
        return attempt(result, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Why an operation was cancelled, naming operations through `name`.
    static func cancellation(_ cause: CancellationCause, name: (Int) -> String) -> String {
        switch cause {
        case .prerequisiteFailed(let prerequisite):
            "prerequisite '\(name(prerequisite))' failed"
        case .prerequisiteCancelled(let prerequisite, let root):
            "prerequisite '\(name(prerequisite))' was cancelled (\(name(root)))"
        case .runStopped(let failed):
            "the run stopped after '\(name(failed))' failed (use -k to keep going)"
        case .interrupted(let signal):
            "interrupted by \(SignalName.of(signal))"
        }
    }
}
