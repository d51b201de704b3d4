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
    /// Whether the process became a subreaper. Through `ProcessHost.takeOverThisProcess()`: only a
    /// runner that reaps with `wait4(-1)` (`ProcessRunner.ChildExitNotice.signal`) reaps the
    /// orphans too; with a pidfd per command they would stay zombies.
    static func enable() -> Bool {
        cps_become_child_subreaper() == 0
    }
}
