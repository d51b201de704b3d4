import CProcessShims
import Glibc
import OpsrunCore
import OpsrunEngine

/// The one place that starts processes (through `cps_spawn`: clone and exec): `/bin/sh -c
/// <command> <task> <arguments...>`, or the program itself when the command has no shell syntax (`DirectCommand`), in a
/// process group of its own.
///
/// A spawn returns as soon as the child exists; the child execs while opsrun goes on. So a child
/// that cannot exec (a working directory that is gone, a program that is not one) is only known
/// once it has exited: with status 127 and `failureBeforeExec(slot:)` set. An interactive command
/// is the exception: its spawn waits for the exec, so the terminal is its before opsrun goes on.
/// Measured on 2,000 `/bin/true` at `-j 2` (Benchmarks/README.md): `posix_spawn` instead took
/// 1.20× as long (fan-in; DAG 1.16×), and waiting for each exec, as `vfork` does, 1.06×.
final class CommandSpawner {
    enum Outcome {
        /// The pid, which is also the process group, and a pidfd for it (-1 unless asked for);
        /// `directly` when the program was started itself rather than through the shell.
        case spawned(pid_t, pidFD: Int32, directly: Bool)
        /// Says why, for `JobResult.spawnFailure`, with the errno (EMFILE: the runner may wait).
        case failed(String, errno: Int32)
    }

    /// The dispositions each child resets before exec: those the process changed or inherited
    /// changed (`nohup` ignores SIGHUP, and an ignored disposition would survive exec), and any
    /// handler installed. Every child starts with an empty signal mask.
    private let resetSignals: UnsafeMutablePointer<sigset_t>
    private var priorityThreads: [QualityOfService: PrioritySpawnerThread] = [:]
    /// What each job slot's child reads until it execs; made on the slot's first spawn.
    private var launches: [ChildLaunch?] = []
    /// Where directly-run programs are, remembered for the whole run.
    let locator = ProgramLocator()
    /// Every non-interactive command's standard input, opened once rather than in each child;
    /// -1 when that failed, with why in `nullInputError`.
    private let nullInput: Int32
    private let nullInputError: Int32
    /// Whether any signal has a handler: then no signal may be taken between clone and the child's
    /// reset of its dispositions, and `cps_spawn` blocks them all around the clone. (opsrun itself
    /// installs none; it reads its signals from a signalfd.)
    private let handlersInstalled: Bool
    /// opsrun's own working directory: a command that runs there needs no chdir.
    private let currentDirectory = FileText.currentDirectory()

    init() {
        resetSignals = .allocate(capacity: 1)
        handlersInstalled = cps_non_default_signals(resetSignals) != 0
        nullInput = open("/dev/null", O_RDONLY | O_CLOEXEC)
        nullInputError = nullInput < 0 ? errno : 0
    }

    /// Only once every child it spawned has been reaped: they may read their launch until exec.
    deinit {
        stopThreads()
        resetSignals.deallocate()
        if nullInput >= 0 { close(nullInput) }
    }

    func stopThreads() {
        for thread in priorityThreads.values {
            thread.stop()
        }
        priorityThreads = [:]
    }

    /// Spawns `command` for the job in `slot`, whose previous child, if any, has been reaped, with
    /// a pidfd when `wantsPidFD`: the program itself when `directWords` (`DirectCommand`) are given
    /// and it is found in the PATH the shell would search, else the shell. (A program whose exec
    /// fails is retried through the shell once reaped, by the runner.) `outputs` become its
    /// standard output and error (and /dev/null its input); nil for an interactive command, which
    /// keeps opsrun's. With `handOverTerminal`, the child's group becomes the terminal's
    /// foreground group before it runs.
    func spawn(
        _ command: String, of job: CommandJob, slot: Int, directWords: [String]?, wantsPidFD: Bool,
        outputs: (output: Int32, error: Int32)?, handOverTerminal: Bool
    ) -> Outcome {
        if outputs != nil && nullInput < 0 {
            return .failed("cannot open /dev/null: \(Self.message(nullInputError))", errno: nullInputError)
        }
        guard let launch = launch(for: slot) else {
            let code = errno
            return .failed("cannot start a process: \(Self.message(code))", errno: code)
        }
        let directory = job.workingDirectory == currentDirectory ? nil : job.workingDirectory
        var pid: pid_t = 0
        var pidFD: Int32 = -1
        func spawn(
            _ path: String, _ words: [String],
            _ environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        ) -> Int32 {
            let copies = launch.copy(path: path, arguments: words, directory: directory)
            var request = cps_spawn_request(
                path: copies.path, arguments: copies.arguments, environment: environment,
                directory: copies.directory, standard_input: outputs == nil ? -1 : nullInput,
                standard_output: outputs?.output ?? -1, standard_error: outputs?.error ?? -1,
                take_terminal: handOverTerminal ? 1 : 0, reset_signals: resetSignals,
                descriptor_limit: FileDescriptorLimit.original,
                wait_for_exec: job.interactive || handOverTerminal ? 1 : 0,
                block_signals: handlersInstalled ? 1 : 0)
            return clone(
                launch, &request, &pid, &pidFD, wantsPidFD: wantsPidFD,
                on: priorityThread(for: job.qualityOfService))
        }
        func outcome(_ status: Int32, directly: Bool) -> Outcome {
            if status == 0 { return .spawned(pid, pidFD: pidFD, directly: directly) }
            // The clone itself failed, or (a spawn that waits for the exec) the child did.
            if launch.failureBeforeExec == 0 {
                return .failed("cannot start a process: \(Self.message(status))", errno: status)
            }
            // The child's own failure (an interactive command's exec): not opsrun's descriptors.
            return .failed(Self.describeFailure(status, workingDirectory: job.workingDirectory), errno: 0)
        }
        if let directWords {
            let environment = launch.directEnvironment
            environment.update(environment: job.environmentParts, workingDirectory: job.workingDirectory)
            if let path = locator.locate(directWords[0], searchPath: environment.searchPath) {
                return outcome(spawn(path, directWords, environment.environmentBlock), directly: true)
            }
        }
        // `sh -e -c COMMAND TASK ARG...` (docs/manual/running.md): `-e`, so a `run: |` block
        // stops at its first failing line; `$0` is the task's name (the shell's own messages say
        // `build: 1: cc: not found`), and the arguments after `--` are `"$@"`. A `shell:` list
        // written in the manifest gets the command and the arguments.
        guard let shell = job.shell else {
            let words = DefaultShell.words + [command, job.taskName] + job.arguments
            let status = spawn(DefaultShell.program, words, launch.shellEnvironment.pointer(for: job.environmentParts))
            return outcome(status, directly: false)
        }
        let words = shell + [command] + (job.shellPassesTaskName ? [job.taskName] : []) + job.arguments
        var path = shell[0]
        if !path.utf8.contains(UInt8(ascii: "/")) {
            let environment = launch.directEnvironment
            environment.update(environment: job.environmentParts, workingDirectory: job.workingDirectory)
            guard let found = locator.locate(path, searchPath: environment.searchPath) else {
                return .failed("cannot start the shell '\(path)': not found in the task's PATH", errno: 0)
            }
            path = found
        }
        let status = spawn(path, words, launch.shellEnvironment.pointer(for: job.environmentParts))
        return outcome(status, directly: false)
    }

    /// `cps_spawn` (with a pidfd when `wantsPidFD`), from the priority thread when given; a clone
    /// that could not make its pidfd (a descriptor too) is retried once the limit is raised.
    private func clone(
        _ launch: ChildLaunch, _ request: UnsafePointer<cps_spawn_request>, _ pid: UnsafeMutablePointer<pid_t>,
        _ pidFD: UnsafeMutablePointer<Int32>, wantsPidFD: Bool, on thread: PrioritySpawnerThread?
    ) -> Int32 {
        func spawnFromThisThread() -> Int32 {
            FileDescriptorLimit.retryingOnExhaustion { () -> Int32? in
                let status = cps_spawn(launch.record, request, pid, wantsPidFD ? pidFD : nil)
                if status == EMFILE && launch.failureBeforeExec == 0 {
                    errno = EMFILE
                    return nil
                }
                return status
            } ?? EMFILE
        }
        guard let thread else { return spawnFromThisThread() }
        var status: Int32 = 0
        thread.run { status = spawnFromThisThread() }
        return status
    }

    /// The errno of what failed in the slot's last child before its exec, 0 when it exec'd. Valid
    /// once that child is reaped, until the slot spawns again.
    func failureBeforeExec(slot: Int) -> Int32 {
        slot < launches.count ? launches[slot]?.failureBeforeExec ?? 0 : 0
    }

    private func launch(for slot: Int) -> ChildLaunch? {
        if slot >= launches.count { launches += Array(repeating: nil, count: slot + 1 - launches.count) }
        if let launch = launches[slot] { return launch }
        let launch = ChildLaunch()
        launches[slot] = launch
        return launch
    }

    /// The thread to spawn from for a lowered priority; nil for the run loop's own thread.
    private func priorityThread(for qualityOfService: QualityOfService) -> PrioritySpawnerThread? {
        guard qualityOfService.niceness > 0 else { return nil }
        if let thread = priorityThreads[qualityOfService] { return thread }
        let thread = PrioritySpawnerThread(
            niceness: qualityOfService.niceness,
            idleInputOutput: qualityOfService == .background)
        priorityThreads[qualityOfService] = thread
        return thread
    }

    /// The child reports a failed chdir and a failed exec alike, by errno; the directory is
    /// checked only now, on the failure path, so the common path pays nothing for the message.
    static func describeFailure(_ code: Int32, workingDirectory: String) -> String {
        var information = stat()
        if stat(workingDirectory, &information) != 0 {
            if errno == ENOENT || errno == ENOTDIR {
                return "working directory '\(workingDirectory)' does not exist"
            }
            return "cannot use working directory '\(workingDirectory)': \(message(errno))"
        }
        if information.st_mode & S_IFMT != S_IFDIR {
            return "working directory '\(workingDirectory)' is not a directory"
        }
        if access(workingDirectory, X_OK) != 0 {
            return "cannot enter working directory '\(workingDirectory)': \(message(errno))"
        }
        return "cannot run \(DefaultShell.program): \(message(code))"
    }

    private static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
