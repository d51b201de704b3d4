import Glibc

extension SignalHandling {
    /// Whether a termination signal is waiting, blocked, for the runner's signalfd: `sigpending`,
    /// which takes nothing. Work on the run loop's thread that can take long (hashing a large
    /// source) asks this between steps, so that a Ctrl-C cuts it short (DESIGN: the run loop).
    /// Always `false` where the signals are not blocked (they act at once there).
    public static func isTerminationSignalPending() -> Bool {
        var pending = sigset_t()
        guard sigpending(&pending) == 0 else { return false }
        var signals = terminationSignals
        // The standard signals only: the termination ones are all below 32.
        return (1..<32).contains { sigismember(&signals, $0) == 1 && sigismember(&pending, $0) == 1 }
    }
}
