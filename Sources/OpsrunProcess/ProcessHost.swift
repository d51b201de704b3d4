/// What the process hosting the runner set up for itself, before any thread existed, handed to the
/// library as a value rather than kept in globals.
///
/// The `opsrun` executable takes the whole process over (`takeOverThisProcess`): child exits come
/// as SIGCHLD, and it adopts the orphans of its commands, which only a runner that reaps with
/// `wait4(-1)` can reap (which is why it stays: correctness; it also spares a descriptor and an
/// `epoll_ctl` per command, a pidfd per command took 1.08× as long on 2,000 `/bin/true`). A program that embeds the library (and the unit tests, whose process has
/// threads of its own) uses `embedded`: a pidfd per command, nothing process-wide.
public struct ProcessHost: Sendable, Equatable {
    /// How the runner learns that a command's process exited.
    public var childExits: ProcessRunner.ChildExitNotice
    /// The process is a child subreaper: orphans of its commands come back to it (only with
    /// `.signal`, which reaps every child).
    public var adoptsOrphans: Bool

    public init(childExits: ProcessRunner.ChildExitNotice, adoptsOrphans: Bool) {
        self.childExits = childExits
        self.adoptsOrphans = adoptsOrphans && childExits == .signal
    }

    /// A pidfd per command; no signal mask or subreaper: safe in any process.
    public static let embedded = ProcessHost(childExits: .pidfd, adoptsOrphans: false)

    /// Blocks the termination signals, SIGPIPE and SIGCHLD, and makes this process a child
    /// subreaper. Call it first thing in `main`, before any thread exists (a signal blocked in one
    /// thread only would be taken by another).
    public static func takeOverThisProcess() -> ProcessHost {
        SignalHandling.blockTerminationSignals()
        SignalHandling.blockChildExitSignal()
        return ProcessHost(childExits: .signal, adoptsOrphans: OrphanAdoption.enable())
    }
}
