import Glibc

/// The runner's record of one job, from `start` to `.finished`.
final class RunningJob {
    let job: CommandJob
    let slot: Int
    /// `job.environment` as C strings for `/bin/sh`, made once for all its commands, when first
    /// needed.
    private var shellEnvironment: CStringArray?
    /// The environment the shell would pass on, for commands run without it (`DirectEnvironment`).
    private var directEnvironment: CStringArray?
    /// The PATH that commands run without the shell are looked up in.
    private(set) lazy var searchPath: String? = DirectEnvironment.searchPath(in: job.environment)
    let startNanoseconds: UInt64
    let timeoutDeadline: UInt64?

    var commandIndex = 0
    /// Told apart from the job's earlier commands in poll tokens.
    var serial: UInt32 = 0
    /// The current command's pid, which is also its process group id.
    var pid: pid_t = 0
    var pidFD: Int32 = -1
    var standardOutput: Int32 = -1
    var standardError: Int32 = -1
    var ownsTerminal = false

    /// A terminated command's group, once its shell has exited: the job finishes when the group
    /// is gone, so the engine, told it ended, may exit without cutting the grace period short for
    /// members that trap SIGTERM.
    var watch: GroupWatch?

    var timedOut = false
    var terminatedByRequest = false
    /// When the group gets SIGKILL, once SIGTERM was sent (while the shell runs; then the watch's).
    var killDeadline: UInt64?
    var killed = false

    init(job: CommandJob, slot: Int, now: UInt64) {
        self.job = job
        self.slot = slot
        startNanoseconds = now
        timeoutDeadline = job.timeoutMilliseconds.map { now + UInt64(max(0, $0)) * 1_000_000 }
    }

    /// The environment block for a command run by `/bin/sh -c`.
    func environmentForShell() -> CStringArray {
        if let block = shellEnvironment { return block }
        let block = CStringArray(job.environment)
        shellEnvironment = block
        return block
    }

    /// The environment block for a command run directly.
    func environmentForDirectCommand() -> CStringArray {
        if let block = directEnvironment { return block }
        let block = CStringArray(
            DirectEnvironment.make(from: job.environment, workingDirectory: job.workingDirectory))
        directEnvironment = block
        return block
    }

    /// Frees the environment blocks; the job spawns nothing more.
    func releaseEnvironments() {
        shellEnvironment?.free()
        shellEnvironment = nil
        directEnvironment?.free()
        directEnvironment = nil
    }

    var isTerminating: Bool { timedOut || terminatedByRequest }

    /// The earliest moment something must happen to this job's running command without any event.
    var nextDeadline: UInt64? {
        guard pidFD >= 0 else { return nil }
        let timeout = isTerminating ? nil : timeoutDeadline
        let kill = killed ? nil : killDeadline
        return [timeout, kill].compactMap { $0 }.min()
    }
}
