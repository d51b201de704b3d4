import CProcessShims
import Glibc

/// Makes opsrun the parent of every process its tasks orphan, so that none outlives it.
///
/// A task's commands run in process groups of their own, which opsrun terminates; but a process
/// may leave its group (`setsid cmd &`, `set -m; cmd &`, a daemon), and once its parent exits it
/// would belong to init, out of reach. As a child subreaper (PR_SET_CHILD_SUBREAPER), opsrun gets
/// it instead: the runner reaps it like any child, terminates it on an interrupt, and at the end
/// of the run (`ProcessRunner.shutdown`).
public enum OrphanAdoption {
    /// Call it in `main`, with `SignalHandling.blockChildExitSignal()`: only a runner that reaps
    /// with `wait4(-1)` (`ProcessRunner.ChildExitNotice.signal`) reaps the orphans too; with a
    /// pidfd per command they would stay zombies.
    public static func enable() {
        isEnabled = cps_become_child_subreaper() == 0
    }

    /// Whether this process adopts orphans.
    nonisolated(unsafe) public private(set) static var isEnabled = false
}
