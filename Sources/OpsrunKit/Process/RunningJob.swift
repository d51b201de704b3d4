import Glibc

/// The runner's record of one job, from `start` to `.finished`.
final class RunningJob {
    enum Phase {
        /// The current command's leader is running (or has exited and is about to be reaped).
        case running
        /// A terminated command's leader has ended; members of its group are still running and
        /// the job finishes when they are gone (or SIGKILL was sent and they stay unreachable).
        case awaitingGroup(Termination)
    }

    let job: CommandJob
    let slot: Int
    /// `job.environment` as C strings, made once for all its commands.
    let environment: CStringArray
    let startNanoseconds: UInt64
    let timeoutDeadline: UInt64?

    var phase = Phase.running
    var commandIndex = 0
    /// Told apart from the job's earlier commands in poll tokens.
    var serial: UInt32 = 0
    /// The current command's pid, which is also its process group id.
    var pid: pid_t = 0
    var pidFD: Int32 = -1
    var standardOutput: Int32 = -1
    var standardError: Int32 = -1
    var ownsTerminal = false

    /// pidfds of the group members awaited (-1 once exited), and which scan of the group found them.
    var members: [Int32] = []
    var membersGeneration: UInt16 = 0

    var timedOut = false
    var terminatedByRequest = false
    /// When the group gets SIGKILL, once SIGTERM was sent.
    var killDeadline: UInt64?
    var killed = false
    /// After SIGKILL, how long to wait for members before finishing anyway (a process stuck in
    /// uninterruptible sleep must not hang opsrun).
    var giveUpDeadline: UInt64?

    init(job: CommandJob, slot: Int, now: UInt64) {
        self.job = job
        self.slot = slot
        environment = CStringArray(job.environment)
        startNanoseconds = now
        timeoutDeadline = job.timeoutMilliseconds.map { now + UInt64(max(0, $0)) * 1_000_000 }
    }

    var isTerminating: Bool { timedOut || terminatedByRequest }

    /// The earliest moment something must happen to this job without any event.
    var nextDeadline: UInt64? {
        var earliest: UInt64?
        func consider(_ deadline: UInt64?) {
            if let deadline, deadline < (earliest ?? .max) { earliest = deadline }
        }
        if case .running = phase, !isTerminating { consider(timeoutDeadline) }
        if !killed { consider(killDeadline) }
        consider(giveUpDeadline)
        return earliest
    }
}
