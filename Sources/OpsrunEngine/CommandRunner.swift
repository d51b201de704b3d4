/// Runs the commands of task attempts for the engine (ninja's `CommandRunner`).
///
/// The engine never spawns, sleeps or prints: it starts jobs, then waits for what the runner reports.
/// Three runners exist: the real one (`ProcessRunner`, the only code that spawns), the dry-run one
/// (finishes every job at once, successfully, running nothing), and a scripted fake in tests.
public protocol CommandRunner: AnyObject {
    /// Starts the job's first command and returns at once (an asynchronous operation's `start()`).
    /// The runner runs the job's commands in order and stops at the first that fails.
    func start(_ job: consuming CommandJob)

    /// Blocks until at least one thing happened, and returns what happened, in order.
    /// Called only while at least one job is running, or to learn of a signal.
    func waitForEvents() -> [RunnerEvent]

    /// Stops every running job: SIGTERM to each job's process group, SIGKILL to what is left after
    /// the grace period; with `immediately`, SIGKILL now. Each job still ends with `.finished`.
    func terminateAll(immediately: Bool)

    /// Stops one running job as `terminateAll` would (its cleanup still runs, within the grace
    /// period): a service no task needs any more, or a dependent whose service exited.
    func terminate(jobID: Int)

    /// Stops a service no task of this run needs any more, as `terminate(jobID:)` does; a runner
    /// that keeps services up between runs (`--watch`, docs/manual/watch.md) may instead keep its process for
    /// the next run and report it finished at once, with `keptRunning`.
    func stopService(jobID: Int)

    /// Ctrl-Z (`RunnerEvent.suspendRequested`): stops every running job's process group, then
    /// opsrun itself, and returns once opsrun is continued (`fg`, `bg`), every group continued
    /// where it was; the time stopped counts against no job's timeout (docs/manual/running.md).
    func suspend()

    /// One of the service's prerequisites ran in this run (a new port, a new config): a process a
    /// runner kept up for it from an earlier run (`stopService`) serves stale settings, so it is
    /// stopped, and the service starts afresh when next needed (docs/manual/watch.md).
    func discardKeptService(like job: CommandJob)
}

extension CommandRunner {
    public func stopService(jobID: Int) { terminate(jobID: jobID) }

    /// A runner that runs nothing has nothing to stop.
    public func suspend() {}

    public func discardKeptService(like job: CommandJob) {}
}

/// One attempt at running one task's commands.
public struct CommandJob: Sendable {
    /// The operation's id; unique among running jobs.
    public var id: Int
    public var taskName: String
    /// Each run by `/bin/sh -e -c COMMAND TASK ARG...` (or `shell`) as its own process in its own process group, in order.
    public var commands: [String]
    /// Absolute path.
    public var workingDirectory: String
    /// The complete environment, as `NAME=VALUE`: made when a command is spawned.
    public var environment: [String] { environmentParts.entries }
    public var environmentParts: JobEnvironment
    /// The whole attempt's time limit; past it the process group is terminated.
    public var timeoutMilliseconds: Int?
    public var qualityOfService: QualityOfService
    /// Standard input, output and error are the terminal's rather than `/dev/null` and pipes.
    public var interactive: Bool
    /// `opsrun TASK -- ARG...`: each command runs as `sh -c COMMAND TASK ARG...`, so these are its
    /// positional parameters (`"$@"`), and `$0` is the task's name.
    public var arguments: [String]
    /// The task's declared outputs, variables expanded, relative to `workingDirectory` (or
    /// absolute): before the first command the runner makes the parents of those without
    /// wildcards (`Directories.parents(ofOutputs:in:)`), as ninja does. One that cannot be made
    /// fails the job without starting it.
    public var outputs: [String] = []
    /// The task's `depfile`, as `outputs` are written: its parent is made too (`cc -MF deps/a.d`
    /// does not make `deps/`).
    public var depfile: String?
    /// `cleanup:` commands, run in order after `commands` end however they ended (an interrupt
    /// included, within the grace period); their failure never changes the job's result.
    public var cleanupCommands: [String] = []
    /// `shell:` when it is not the default `/bin/sh -e -c`: the interpreter's words, each command
    /// appended (a program without `/` looked for in the job's `PATH`).
    public var shell: [String]?
    /// Whether the task's name follows the command, as the shell's `$0` (`sh` and `bash`: yes; a
    /// list written in the manifest: no).
    public var shellPassesTaskName = true
    /// Set for a service (docs/manual/ci.md): the runner reports `.ready` when its probe succeeds.
    public var service: ServiceReadiness?

    public init(
        id: Int, taskName: String, commands: [String], workingDirectory: String,
        environment: JobEnvironment, timeoutMilliseconds: Int? = nil,
        qualityOfService: QualityOfService = .default, interactive: Bool = false, arguments: [String] = []
    ) {
        self.id = id
        self.taskName = taskName
        self.commands = commands
        self.workingDirectory = workingDirectory
        self.environmentParts = environment
        self.timeoutMilliseconds = timeoutMilliseconds
        self.qualityOfService = qualityOfService
        self.interactive = interactive
        self.arguments = arguments
    }
}

/// A job's environment: usually the block every task shares plus the job's own entries (an `each`
/// instance's variables) and `OPSRUN_TASK`, kept apart so that making 10,000 jobs (most of which a
/// no-op run never starts) does not copy the shared block 10,000 times.
public struct JobEnvironment: Sendable, ExpressibleByArrayLiteral {
    /// `NAME=VALUE` entries, shared between jobs.
    public var shared: [String]
    /// `NAME=VALUE` entries of this job alone, after the shared ones (none of the same names).
    public var own: [String]
    /// When set, `OPSRUN_TASK=<taskName>` comes last.
    public var taskName: String?

    public init(shared: [String], own: [String] = [], taskName: String? = nil) {
        self.shared = shared
        self.own = own
        self.taskName = taskName
    }

    /// Exactly `entries`.
    public init(_ entries: [String]) { self.init(shared: entries) }

    public init(arrayLiteral entries: String...) { self.init(shared: entries) }

    /// The complete environment, as `NAME=VALUE`.
    public var entries: [String] {
        guard taskName != nil || !own.isEmpty else { return shared }
        return shared + own + (taskName.map { [Self.taskEntry($0)] } ?? [])
    }

    package static func taskEntry(_ taskName: String) -> String { "OPSRUN_TASK=" + taskName }

    /// Whether two shared blocks are the same array (not merely equal): then jobs differ only in
    /// their `taskName`, and their environments need not be compared entry by entry.
    package static func sameStorage(_ first: [String], _ second: [String]) -> Bool {
        first.count == second.count
            && first.withUnsafeBufferPointer { a in second.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress } }
    }
}

/// Which of a process's output streams a chunk came from.
public enum OutputStreamKind: Sendable, Equatable {
    case standardOutput, standardError
}

/// How a process ended. A non-zero exit is a result, not an error.
public enum Termination: Sendable, Equatable {
    case exited(Int32)
    case signaled(Int32)

    public var succeeded: Bool { self == .exited(0) }
}

/// How a job ended.
public struct JobResult: Sendable, Equatable {
    /// How its last command ended (the failing one, or the last of the list).
    public var termination: Termination
    /// Index in `CommandJob.commands` of that command.
    public var commandIndex: Int
    /// The runner terminated it because it outlived its timeout.
    public var timedOut: Bool
    /// The runner terminated it because it was told to (`terminateAll`).
    public var terminatedByRequest: Bool
    /// The job could not be started at all (e.g. its directory does not exist); says why.
    public var spawnFailure: String?
    /// A service's own failure, or a dependent's through its service (docs/manual/ci.md).
    public var serviceFailure: ServiceFailure? {
        get { extras?.serviceFailure }
        set { extras = JobResultExtras(serviceFailure: newValue, cleanupFailure: cleanupFailure, keptRunning: keptRunning) }
    }
    /// The first `cleanup:` command that failed, if one did: a warning.
    public var cleanupFailure: CleanupFailure? {
        get { extras?.cleanupFailure }
        set { extras = JobResultExtras(serviceFailure: serviceFailure, cleanupFailure: newValue, keptRunning: keptRunning) }
    }
    /// A service the runner kept running for the next run (`--watch`) rather than stopping it.
    public var keptRunning: Bool {
        get { extras?.keptRunning ?? false }
        set { extras = JobResultExtras(serviceFailure: serviceFailure, cleanupFailure: cleanupFailure, keptRunning: newValue) }
    }
    private var extras: JobResultExtras?
    /// Monotonic nanoseconds.
    public var startNanoseconds: UInt64
    public var endNanoseconds: UInt64

    public init(
        termination: Termination, commandIndex: Int, timedOut: Bool = false,
        terminatedByRequest: Bool = false, spawnFailure: String? = nil,
        startNanoseconds: UInt64 = 0, endNanoseconds: UInt64 = 0
    ) {
        self.termination = termination
        self.commandIndex = commandIndex
        self.timedOut = timedOut
        self.terminatedByRequest = terminatedByRequest
        self.spawnFailure = spawnFailure
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
    }

    public var succeeded: Bool {
        termination.succeeded && !timedOut && spawnFailure == nil && serviceFailure == nil
    }
}

/// What a runner reports.
public enum RunnerEvent: Sendable, Equatable {
    /// A command of the job was spawned (for `-v`, which echoes commands).
    case commandStarted(jobID: Int, commandIndex: Int)
    /// Bytes the job wrote, as they came; never more than a bounded chunk at once.
    case output(jobID: Int, OutputStreamKind, [UInt8])
    case finished(jobID: Int, JobResult)
    /// A service's readiness probe succeeded (or, without one, its command started).
    case ready(jobID: Int, nanoseconds: UInt64)
    /// A signal that interrupts the run (SIGINT, SIGTERM, SIGHUP, SIGQUIT) reached opsrun.
    case signal(Int32)
    /// Ctrl-Z (SIGTSTP) reached opsrun, or stopped the interactive task that holds the terminal:
    /// the engine suspends the run (`CommandRunner.suspend()`).
    case suspendRequested
}
