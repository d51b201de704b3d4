import Glibc

/// A command's process group: every process it started that did not leave the group.
enum ProcessGroup {
    /// Sends `signal` to every member; false when the group has no member left (ESRCH).
    @discardableResult
    static func send(_ signal: Int32, to processGroup: pid_t) -> Bool {
        kill(-processGroup, signal) == 0
    }

    /// Sends `signal` to the group of a command whose leader has not been reaped yet. The leader
    /// makes its group itself, after `start` has returned; until then the group does not exist
    /// (ESRCH) and the leader gets the signal alone. It blocks every signal until just before
    /// exec, after resetting the dispositions, so the signal takes effect there, before the
    /// command runs, and there is nothing else in its group yet to reach.
    static func send(_ signal: Int32, toGroupLedBy leader: pid_t) {
        if kill(-leader, signal) != 0 && errno == ESRCH { kill(leader, signal) }
    }

    /// The members still running (zombies excluded), found in /proc.
    ///
    /// `kill(-group, 0)` also counts zombies, and an orphaned zombie may stay until init reaps it,
    /// or forever under an init that never does (as in some containers), so it cannot say whether
    /// a group is done. This scan is only made when a terminated command's leader has exited and the
    /// group still answers `kill`.
    static func runningMembers(of processGroup: pid_t) -> [pid_t] {
        ProcessTable.processes { $0.processGroup == processGroup && !$0.isZombie }.map { $0.pid }
    }
}
