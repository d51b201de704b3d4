/// Where an operation is in its life: `pending → ready → executing → finished`, or `cancelled`.
public enum OperationState: Sendable, Equatable {
    /// Waiting for prerequisites.
    case pending
    /// Every prerequisite finished well; waiting for a slot.
    case ready
    case executing
    case finished(OperationOutcome)
    /// Never ran to an end of its own; says why.
    case cancelled(CancellationCause)

    /// Finished or cancelled: nothing more happens to it.
    public var isEnded: Bool {
        switch self {
        case .pending, .ready, .executing: false
        case .finished, .cancelled: true
        }
    }
}

/// How a finished operation ended.
public enum OperationOutcome: Sendable, Equatable {
    case succeeded
    case failed
    /// Failed, with `allow_failure`: a warning; dependents run and the exit code stays 0.
    case failedAllowed
    /// Its work was already done (docs/manual/up-to-date.md): it did not run, and counts as a success.
    case upToDate
    /// A service that was ready, stopped because no task needed it any more, the run ended or was
    /// interrupted (docs/manual/ci.md): not a failure.
    case stopped
    /// Out of date, but its outputs and log came from the output cache (docs/manual/cache.md): it did not run,
    /// and counts as a success.
    case restored

    /// Whether dependents may run after it.
    public var unblocksDependents: Bool { self != .failed }
}

/// Why an operation was cancelled.
public enum CancellationCause: Sendable, Equatable {
    /// Its prerequisite `prerequisite` failed (`prerequisite 'compile' failed`).
    case prerequisiteFailed(prerequisite: Int)
    /// Its prerequisite `prerequisite` was cancelled because `root` failed
    /// (`prerequisite 'link' was cancelled (compile)`).
    case prerequisiteCancelled(prerequisite: Int, root: Int)
    /// It never started because the run stopped after `after` failed ("not run"; `-k` avoids it).
    case runStopped(after: Int)
    /// A signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) ended the run before or while it executed.
    case interrupted(signal: Int32)

    /// The prerequisite through which a failure reached it, if one did.
    public var immediatePrerequisite: Int? {
        switch self {
        case .prerequisiteFailed(let prerequisite), .prerequisiteCancelled(let prerequisite, _):
            prerequisite
        case .runStopped, .interrupted: nil
        }
    }

    /// The failed operation at the start of the chain, if a failure caused it.
    public var rootFailure: Int? {
        switch self {
        case .prerequisiteFailed(let prerequisite): prerequisite
        case .prerequisiteCancelled(_, let root): root
        case .runStopped, .interrupted: nil
        }
    }
}
