/// Receives what happens during a run, in order; printers and reports are observers.
public protocol RunObserver: AnyObject {
    func handle(_ event: RunEvent)
}

/// Something that happened to an operation or to the run. Indices are into the specs array.
public enum RunEvent: Sendable, Equatable {
    /// An attempt started (attempt 1 is the first; a group starts once and finishes at once).
    case operationStarted(index: Int, attempt: Int)
    /// The runner spawned command `commandIndex` of the operation's job.
    case commandStarted(index: Int, commandIndex: Int)
    case output(index: Int, OutputStreamKind, [UInt8])
    /// An attempt failed and another follows at once; `operationStarted` for it comes next.
    case retrying(index: Int, nextAttempt: Int, previous: JobResult)
    /// The operation ended with an outcome; `result` is its last attempt's (`nil` for a group).
    case finished(index: Int, OperationOutcome, result: JobResult?)
    /// A service became ready (monotonic nanoseconds): its dependents may start; it runs on.
    case serviceReady(index: Int, nanoseconds: UInt64)
    /// The operation ended without an outcome of its own.
    case cancelled(index: Int, CancellationCause)
    /// No new operation starts from now on; running ones finish (or are terminated on a signal).
    case runStopping(RunStopReason)
    /// Ctrl-Z (SIGTSTP): every running task is about to be stopped, then opsrun itself
    /// (docs/manual/running.md). The terminal is the shell's until `runContinued`.
    case runSuspending
    /// `fg` or `bg` (SIGCONT) continued opsrun and every task it had stopped.
    case runContinued
}

/// Why a run stopped starting operations.
public enum RunStopReason: Sendable, Equatable {
    /// The operation failed and `-k` was not given.
    case failure(index: Int)
    /// A signal that interrupts the run (SIGINT, SIGTERM, SIGHUP, SIGQUIT) reached opsrun.
    case signal(Int32)
}
