import Glibc
import OpsrunEngine

/// The runner's record of one job, from `start` to `.finished`.
final class RunningJob {
    /// Its `id` changes only when a service is kept between runs (`ProcessRunner+KeptServices`).
    var job: CommandJob
    let slot: Int
    private(set) var startNanoseconds: UInt64
    private(set) var timeoutDeadline: UInt64?

    var commandIndex = 0
    /// Told apart from the job's earlier commands in poll tokens.
    var serial: UInt32 = 0
    /// The current command's pid, which is also its process group id.
    var pid: pid_t = 0
    /// From the spawn of a command until it is reaped.
    var commandRunning = false
    /// The running command's pidfd, when exits are watched that way; -1 otherwise.
    var pidFD: Int32 = -1
    /// Whether the current command's program was spawned itself, not through the shell.
    var spawnedDirectly = false
    /// The `OutputPipes` pair its commands write to; nil for an interactive job, or once retired.
    var pipes: Int?
    var ownsTerminal = false

    /// A terminated command's group, once its shell has exited: the job finishes when the group
    /// is gone, so the engine, told it ended, may exit without cutting the grace period short for
    /// members that trap SIGTERM.
    var watch: GroupWatch?

    /// Its current command could not get file descriptors; it is retried when another job ends
    /// (`ProcessRunner+Descriptors`), through the shell when `retryThroughShell`.
    var waitingForDescriptors = false
    var retryThroughShell = false

    var timedOut = false
    var terminatedByRequest = false
    /// When the group gets SIGKILL, once SIGTERM was sent (while the shell runs; then the watch's).
    var killDeadline: UInt64?
    /// The current command's group got its SIGTERM: it never gets another (`terminate`).
    var groupGotTerm = false
    var killed = false
    /// Killed without a grace period (a second interrupt): not even its cleanup runs then.
    var killedAtOnce = false

    /// Set once `commands` ended and its `cleanup:` commands run: how `commands` ended, which is
    /// the job's result, and the cleanup command running now.
    var mainEnd: MainEnd?
    var cleanupIndex = 0
    var cleanupFailure: CleanupFailure?
    /// A service's probing, until it is ready or gives up (`ProcessRunner+Readiness`).
    var readiness: Readiness?
    var serviceFailure: ServiceFailure?

    struct MainEnd {
        var termination: Termination
        var commandIndex: Int
        var spawnFailure: String?
        var timedOut: Bool
    }

    struct Readiness {
        /// Past it, the service is not ready in time.
        var deadline: UInt64
        /// When the probe runs next; `nil` while it runs.
        var nextProbe: UInt64?
        var delay: UInt64
        /// When the last probe started: at the deadline, a probe older than `staleProbe` means
        /// opsrun did not run meanwhile, and one last probe decides.
        var lastProbeStarted: UInt64 = 0
        var hadLastProbe = false
        /// The end of what the running probe wrote, each stream's last `probeTailBytes`.
        var probeOutput: [UInt8] = []
        var probeError: [UInt8] = []
        /// How the last probe that ended did: a failure says it.
        var lastProbe: ProbeEnd?
    }

    /// The command to spawn now: one of `commands`, or of `cleanupCommands` once they run.
    var currentCommand: String {
        mainEnd == nil ? job.commands[commandIndex] : job.cleanupCommands[cleanupIndex]
    }

    /// The index `.commandStarted` reports: cleanup commands follow the job's own.
    var reportedCommandIndex: Int { mainEnd == nil ? commandIndex : job.commands.count + cleanupIndex }

    /// `commands` ended as `end`: the cleanup commands run now, without the job's timeout; after
    /// an interrupt or a stop, within what is left of the grace period.
    func enterCleanup(_ end: MainEnd) {
        mainEnd = end
        cleanupIndex = 0
        timeoutDeadline = nil
        timedOut = false
        if !terminatedByRequest {
            killDeadline = nil
            killed = false
        }
    }

    init(job: consuming CommandJob, slot: Int, now: UInt64) {
        timeoutDeadline = job.timeoutMilliseconds.map { now + UInt64(max(0, $0)) * 1_000_000 }
        self.job = job
        self.slot = slot
        startNanoseconds = now
    }

    /// The job starts now rather than when it was started: it waited for descriptors before its
    /// first command could run, which must not count against its timeout.
    func restartClock(now: UInt64) {
        timeoutDeadline = job.timeoutMilliseconds.map { now + UInt64(max(0, $0)) * 1_000_000 }
        startNanoseconds = now
    }

    /// The run was suspended (Ctrl-Z) for `nanoseconds`: time that does not count against the timeout.
    func postponeTimeout(by nanoseconds: UInt64) {
        timeoutDeadline = timeoutDeadline.map { $0 &+ nanoseconds }
    }

    var isTerminating: Bool { timedOut || terminatedByRequest }

    /// The earliest moment something must happen to this job's running command without any event.
    var nextDeadline: UInt64? {
        guard commandRunning else { return nil }
        var timeout = isTerminating ? nil : timeoutDeadline
        if let readiness {
            timeout = min(timeout ?? .max, readiness.nextProbe.map { min($0, readiness.deadline) } ?? readiness.deadline)
        }
        let kill = killed ? nil : killDeadline
        guard let timeout else { return kill }
        guard let kill else { return timeout }
        return min(timeout, kill)
    }
}
