import Glibc

/// How opsrun takes SIGINT and SIGTERM: blocked in every thread, read from a signalfd by the runner.
public enum SignalHandling {
    /// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread created after it),
    /// and SIGPIPE, so a write to a closed pipe is an error (EPIPE) rather than death.
    ///
    /// SIGPIPE is blocked rather than ignored: every child starts with an empty mask anyway, while
    /// an ignored disposition would survive exec and cost each child a `sigaction` to undo.
    ///
    /// Call it first thing in `main`, before any thread exists: a signal blocked in one thread
    /// only is delivered to another and kills the process. Children get an empty mask and default
    /// dispositions back from `ProcessRunner`'s spawn attributes.
    public static func blockTerminationSignals() {
        var signals = terminationSignals
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Blocks SIGCHLD in the calling thread (and so in every thread created after it), so child
    /// exits queue up for a runner's signalfd (`ProcessRunner.ChildExitNotice.signal`).
    ///
    /// Call it first thing in `main`, before any thread exists: SIGCHLD's default is to be
    /// discarded, so one taken by a thread that does not block it would be lost.
    public static func blockChildExitSignal() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGCHLD)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        childExitSignalBlocked = true
    }

    /// Whether `blockChildExitSignal` was called.
    nonisolated(unsafe) public private(set) static var childExitSignalBlocked = false

    /// SIGINT and SIGTERM: what the runner's signalfd listens for.
    static var terminationSignals: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }
}
