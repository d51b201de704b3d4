import Glibc

/// Hands opsrun's controlling terminal to an interactive command's process group and takes it back.
enum TerminalControl {
    /// Whether standard input is a terminal whose foreground group is opsrun's own; only then may
    /// opsrun give it away (not, say, when opsrun itself runs in the background).
    static func canHandOver() -> Bool {
        isatty(STDIN_FILENO) == 1 && tcgetpgrp(STDIN_FILENO) == getpgrp()
    }

    /// Makes `processGroup` the terminal's foreground group, as a shell does for a job it starts.
    /// The child did it already, before its exec; doing it here too, as shells do, keeps the
    /// handover from depending on how the child was spawned.
    static func handOver(to processGroup: pid_t) {
        withTerminalStopBlocked { _ = tcsetpgrp(STDIN_FILENO, processGroup) }
    }

    static func takeTerminalBack() {
        withTerminalStopBlocked { _ = tcsetpgrp(STDIN_FILENO, getpgrp()) }
    }

    /// tcsetpgrp from a background group raises SIGTTOU, which would stop opsrun. Blocking it in
    /// this thread only (rather than ignoring it process-wide) lets the call through without
    /// touching what any other thread or child sees.
    private static func withTerminalStopBlocked(_ body: () -> Void) {
        var stopSignal = sigset_t()
        var previous = sigset_t()
        sigemptyset(&stopSignal)
        sigaddset(&stopSignal, SIGTTOU)
        pthread_sigmask(SIG_BLOCK, &stopSignal, &previous)
        body()
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }
}
