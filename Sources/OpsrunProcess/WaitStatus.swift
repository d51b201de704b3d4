import CProcessShims
import OpsrunEngine

extension Termination {
    /// How a process ended, from the status `waitpid` gave.
    init(waitStatus status: Int32) {
        if cps_wifsignaled(status) != 0 {
            self = .signaled(cps_wtermsig(status))
        } else {
            self = .exited(cps_wexitstatus(status))
        }
    }
}
