import Glibc

/// How opsrun takes the signals that interrupt a run (SIGINT, SIGTERM, SIGHUP, SIGQUIT) and the one
/// that suspends it (SIGTSTP, Ctrl-Z): blocked in every thread, read from a signalfd by the runner.
public enum SignalHandling {
    /// Blocks the termination signals and SIGTSTP in the calling thread (and so in every thread
    /// created after it), and SIGPIPE, so a write to a closed pipe is an error (EPIPE) rather than
    /// death.
    ///
    /// SIGTSTP is taken rather than left to its default, which would stop opsrun alone: each task
    /// runs in a process group of its own, which a Ctrl-Z at the terminal does not reach, so the
    /// runner stops their groups first, then opsrun (`ProcessRunner.suspend()`).
    ///
    /// SIGPIPE is blocked rather than ignored: every child starts with an empty mask anyway, while
    /// an ignored disposition would survive exec and cost each child a `sigaction` to undo.
    ///
    /// Call it first thing in `main`, before any thread exists: a signal blocked in one thread
    /// only is delivered to another and kills the process. Children get an empty mask and default
    /// dispositions back from `ProcessRunner`'s spawn attributes.
    ///
    /// A termination signal (or SIGTSTP) opsrun was started with ignored stays ignored, and is
    /// unblocked (the mask is inherited too): a blocked signal is queued even when ignored, so `nohup opsrun`
    /// would stop at the hangup it was meant to survive, and a script's `opsrun &` (which ignores
    /// SIGINT and SIGQUIT) at a Ctrl-C meant for the script. GNU make does the same.
    public static func blockTerminationSignals() {
        var signals = runLoopSignals
        var ignored = sigset_t()
        sigemptyset(&ignored)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP] where isIgnored(signal) {
            sigdelset(&signals, signal)
            sigaddset(&ignored, signal)
        }
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        pthread_sigmask(SIG_UNBLOCK, &ignored, nil)
    }

    private static func isIgnored(_ signal: Int32) -> Bool {
        var action = sigaction()
        guard sigaction(signal, nil, &action) == 0 else { return false }
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1  // SIG_IGN
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
    }

    /// What the runner's signalfd listens for besides the termination signals: SIGTSTP suspends
    /// the run (docs/manual/running.md). Not a termination signal: it cuts no work short.
    static var runLoopSignals: sigset_t {
        var signals = terminationSignals
        sigaddset(&signals, SIGTSTP)
        return signals
    }

    /// The signals that interrupt a run; each interrupts it the same way.
    ///
    /// SIGHUP (a closed terminal or SSH session: the shell passes it on to its jobs) and SIGQUIT
    /// (Ctrl-\) too, as ninja does for SIGHUP: with their default action opsrun would die at once
    /// and leave every task running, since each runs in a process group of its own. `nohup opsrun`
    /// still works: an ignored signal is discarded, never queued.
    static var terminationSignals: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM] { sigaddset(&signals, signal) }
        return signals
    }
}
