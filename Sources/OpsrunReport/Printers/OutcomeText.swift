import OpsrunEngine
/// The words for how a task ended, shared by the live lines and the summary.
enum OutcomeText {
    /// One attempt's failure: `exit 2 after 1.3s`, `killed by SIGKILL after 0.4s`,
    /// `timed out after 10s`, `could not start: <why>`; without the duration when asked.
    static func attempt(_ result: JobResult, timeoutMilliseconds: Int?, withDuration: Bool = true)
        -> String
    {
        if let why = result.spawnFailure { return "could not start: \(why)" }
        switch result.serviceFailure {
        case .notReady(let milliseconds, let lastProbe)?:
            let probe = lastProbe.map { "last probe " + probeEnd($0) } ?? "no probe ended"
            return "not ready after \(DurationText.limit(milliseconds: milliseconds)) (\(probe))"
        case .probeCannotRun(let end)?: return "ready probe cannot run (\(probeEnd(end)))"
        case .exitedBeforeReady?: return "exited before it was ready (\(termination(result.termination)))"
        case .exitedWhileNeeded?:
            let after = withDuration
                ? " after " + DurationText.elapsed(from: result.startNanoseconds, to: result.endNanoseconds) : ""
            return "exited while needed (\(termination(result.termination)))" + after
        case .serviceExited(let name, let exit)?: return "service '\(name)' exited (\(termination(exit)))"
        case nil: break
        }
        let duration = DurationText.elapsed(
            from: result.startNanoseconds, to: result.endNanoseconds)
        if result.timedOut {
            // The configured limit reads better than the elapsed time, which overshoots it a little.
            return "timed out after "
                + (timeoutMilliseconds.map { DurationText.limit(milliseconds: $0) } ?? duration)
        }
        let what = termination(result.termination)
        return withDuration ? "\(what) after \(duration)" : what
    }

    /// `exit 1`, `killed by SIGKILL`.
    static func termination(_ termination: Termination) -> String {
        switch termination {
        case .exited(let code): "exit \(code)"
        case .signaled(let signal): "killed by \(SignalName.of(signal))"
        }
    }

    /// How a `ready` probe ended: `exit 127: db: 1: curll: not found`.
    static func probeEnd(_ end: ProbeEnd) -> String {
        termination(end.termination) + (end.lastLine.isEmpty ? "" : ": " + end.lastLine)
    }

    /// A failed `cleanup:` command, a warning: `cleanup failed: exit 1`.
    static func cleanup(_ failure: CleanupFailure) -> String {
        if let why = failure.spawnFailure { return "cleanup could not start: \(why)" }
        return "cleanup failed: \(termination(failure.termination))"
    }

    /// A stopped service's life: `ready after 0.4s, stopped after 3.1s`.
    static func service(_ record: OperationRecord) -> String {
        guard let start = record.startNanoseconds else { return "stopped" }
        let stopped = "stopped after " + DurationText.elapsed(from: start, to: record.endNanoseconds ?? start)
        guard let ready = record.readyNanoseconds else { return stopped + " (never ready)" }
        return "ready after \(DurationText.elapsed(from: start, to: max(start, ready))), " + stopped
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
