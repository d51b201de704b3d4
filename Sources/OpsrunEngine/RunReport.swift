/// What a run did: every operation's end, the counts, and the exit status.
public struct RunReport: Sendable, Equatable {
    /// One per spec, in spec order.
    public var operations: [OperationRecord]
    public var counts: RunCounts
    /// The first signal that interrupted the run, if one did.
    public var signal: Int32?
    /// The failure the run stopped after (without `-k`), if it did.
    public var stoppedAfterFailure: Int?

    public init(operations: [OperationRecord], signal: Int32?, stoppedAfterFailure: Int?) {
        self.operations = operations
        self.counts = RunCounts(operations)
        self.signal = signal
        self.stoppedAfterFailure = stoppedAfterFailure
    }

    /// An interrupt wins over a failure; an allowed failure is a success.
    public var exitCode: ExitCode {
        if let signal { return .interrupted(by: signal) }
        return counts.failed > 0 ? .failure : .success
    }

    /// The counts of the operations that run commands: a group (a task with only `deps`, an
    /// `each` task's instances together) is not a task of its own in the summary's numbers
    /// (docs/manual/running.md): 16 compiles, a link and a test are 18, not 19.
    public func taskCounts(of specs: [OperationSpec]) -> RunCounts {
        guard specs.contains(where: { $0.isGroup }) else { return counts }
        return RunCounts(operations.indices.lazy.filter { !specs[$0].isGroup }.map { operations[$0] })
    }

    /// Indices of the operations that failed for real (not allowed to), in spec order.
    public var failures: [Int] {
        operations.indices.filter { operations[$0].state == .finished(.failed) }
    }
}

/// How one operation ended.
public struct OperationRecord: Sendable, Equatable {
    public var name: String
    /// Always an end state: `.finished` or `.cancelled`.
    public var state: OperationState
    /// Attempts started: 0 if it never ran (or is a group), more than 1 after retries.
    public var attempts: Int
    /// Monotonic nanoseconds: start of the first attempt, end of the last (`nil` if none ran).
    public var startNanoseconds: UInt64?
    public var endNanoseconds: UInt64?
    /// The last attempt's result (`nil` if no job ran).
    public var lastResult: JobResult?
    /// When a service became ready (monotonic nanoseconds); `nil` for any other task.
    public var readyNanoseconds: UInt64?

    public init(
        name: String, state: OperationState, attempts: Int = 0, startNanoseconds: UInt64? = nil,
        endNanoseconds: UInt64? = nil, lastResult: JobResult? = nil, readyNanoseconds: UInt64? = nil
    ) {
        self.readyNanoseconds = readyNanoseconds
        self.name = name
        self.state = state
        self.attempts = attempts
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
        self.lastResult = lastResult
    }
}

/// How many operations ended each way; every operation is in exactly one count.
public struct RunCounts: Sendable, Equatable {
    public var succeeded = 0
    public var failed = 0
    public var failedAllowed = 0
    /// Cancelled by a failed prerequisite, or by an interrupt before it started.
    public var cancelled = 0
    /// Running when a signal interrupted the run (cut short, not cancelled before it started).
    public var interrupted = 0
    /// Never started because the run stopped after a failure.
    public var notRun = 0
    /// Skipped because nothing changed; stays 0 until up-to-date checks exist (docs/manual/up-to-date.md).
    public var upToDate = 0
    /// Services stopped once no task needed them (docs/manual/ci.md): not failures.
    public var stopped = 0
    /// Restored from the output cache instead of run (docs/manual/cache.md).
    public var restored = 0

    public init() {}

    init(_ operations: some Sequence<OperationRecord>) {
        for operation in operations {
            switch operation.state {
            case .finished(.succeeded): succeeded += 1
            case .finished(.failed): failed += 1
            case .finished(.failedAllowed): failedAllowed += 1
            case .finished(.upToDate): upToDate += 1
            case .finished(.stopped): stopped += 1
            case .finished(.restored): restored += 1
            case .cancelled(.runStopped): notRun += 1
            case .cancelled(.interrupted) where operation.attempts > 0: interrupted += 1
            case .cancelled: cancelled += 1
            case .pending, .ready, .executing:
                preconditionFailure("operation '\(operation.name)' did not end")
            }
        }
    }

    public var total: Int { succeeded + failed + failedAllowed + cancelled + interrupted + notRun + upToDate + stopped + restored }
}
