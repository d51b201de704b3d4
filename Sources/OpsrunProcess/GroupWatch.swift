import Glibc
import OpsrunEngine

/// The running members of a command's process group after its leader (the shell) has exited,
/// each watched through a pidfd.
///
/// Why watch rather than remember the group id and `kill(-group, SIGKILL)` when the grace ends:
/// once every member is gone the number is free, and with pids wrapping around (pid_max 32768 on
/// many systems) another command, ours or not, may lead a new group with it by then. A member
/// whose pidfd has not fired is still running and holds the number, so while one is watched the
/// group id still means this group. `kill(-group, 0)` cannot tell either: orphaned zombies answer
/// it, and some containers' init never reaps them.
final class GroupWatch {
    let processGroup: pid_t
    let slot: Int
    /// pidfds of the members found by the last scan; -1 once that member exited.
    var members: [Int32] = []
    /// Which scan `members` came from, so an event from an earlier scan's member is ignored.
    var generation: UInt16 = 0
    /// When the group gets SIGKILL; nil once it has.
    var killDeadline: UInt64?
    /// The group got its SIGTERM (from its job before its shell exited, or as a leftover).
    var gotTerm = false
    /// After SIGKILL, when to stop waiting for the members (one stuck in uninterruptible sleep
    /// must not hang opsrun).
    var giveUpDeadline: UInt64?
    /// The terminated job that finishes when this group is gone; nil for a leftover of a
    /// command that ended by itself, which nothing waits for.
    var owner: RunningJob?
    /// How the owner's command ended, reported when the group is gone.
    var ownerTermination: Termination?

    init(processGroup: pid_t, slot: Int) {
        self.processGroup = processGroup
        self.slot = slot
    }

    var hasRunningMembers: Bool { members.contains { $0 >= 0 } }

    var nextDeadline: UInt64? {
        switch (killDeadline, giveUpDeadline) {
        case (let kill?, let giveUp?): min(kill, giveUp)
        case (let kill?, nil): kill
        case (nil, let giveUp): giveUp
        }
    }
}
