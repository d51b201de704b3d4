import CProcessShims
import Glibc

/// The one place that starts processes (through `cps_spawn`, vfork and exec): `/bin/sh -c <command>`, or the program itself when the
/// command has no shell syntax (`DirectCommand`), in a process group of its own.
final class CommandSpawner {
    /// A command to exec without the shell: the program's path, the words (the first as written,
    /// which becomes `argv[0]` as with the shell), and the environment the shell would have passed.
    struct DirectProgram {
        var path: String
        var arguments: [String]
        var environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    }

    enum Outcome {
        /// The pid, which is also the process group.
        case spawned(pid_t)
        /// Says why, for `JobResult.spawnFailure`.
        case failed(String)
    }

    private static let shell = "/bin/sh"
    /// The dispositions each child resets before exec: those opsrun changed (it ignores SIGPIPE,
    /// and an ignored disposition would survive exec) or inherited changed (`nohup`), and any
    /// handler the Swift runtime installed. Every child starts with an empty signal mask.
    private let resetSignals: UnsafeMutablePointer<sigset_t>
    private var priorityThreads: [QualityOfService: PrioritySpawnerThread] = [:]
    /// Where directly-run programs are, remembered for the whole run.
    let locator = ProgramLocator()
    /// Every non-interactive command's standard input, opened once rather than in each child;
    /// -1 when that failed, with why in `nullInputError`.
    private let nullInput: Int32
    private let nullInputError: Int32
    /// opsrun's own working directory: a command that runs there needs no chdir.
    private let currentDirectory = FileText.currentDirectory()

    init() {
        resetSignals = .allocate(capacity: 1)
        cps_non_default_signals(resetSignals)
        nullInput = open("/dev/null", O_RDONLY | O_CLOEXEC)
        nullInputError = nullInput < 0 ? errno : 0
    }

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

    /// Spawns `command` for `job`: `direct` when given, falling back to the shell if that exec
    /// fails (the program went away since it was found, say). `outputs` become its standard output
    /// and error (and /dev/null its input); nil for an interactive command, which keeps opsrun's.
    /// With `handOverTerminal`, the child's group becomes the terminal's foreground group before
    /// it runs.
    func spawn(
        _ command: String, of job: CommandJob, direct: DirectProgram?,
        shellEnvironment: () -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
        outputs: (output: Int32, error: Int32)?, handOverTerminal: Bool
    ) -> Outcome {
        if outputs != nil && nullInput < 0 {
            return .failed("cannot open /dev/null: \(Self.message(nullInputError))")
        }
        let takeTerminal = handOverTerminal
        let directory = job.workingDirectory == currentDirectory ? nil : job.workingDirectory
        var pid: pid_t = 0
        var status: Int32 = 0
        let thread = priorityThread(for: job.qualityOfService)
        func spawn(
            _ path: String, _ words: [String],
            _ environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        ) -> Int32 {
            let arguments = CStringArray(words)
            defer { arguments.free() }
            func spawnFromThisThread() -> Int32 {
                path.withCString { path in
                    func spawn(in directory: UnsafePointer<CChar>?) -> Int32 {
                        var request = cps_spawn_request(
                            path: path, arguments: arguments.pointer, environment: environment,
                            directory: directory, standard_input: outputs == nil ? -1 : nullInput,
                            standard_output: outputs?.output ?? -1, standard_error: outputs?.error ?? -1,
                            take_terminal: takeTerminal ? 1 : 0, reset_signals: resetSignals,
                            descriptor_limit: FileDescriptorLimit.original)
                        return cps_spawn(&request, &pid)
                    }
                    guard let directory else { return spawn(in: nil) }
                    return directory.withCString { spawn(in: $0) }
                }
            }
            guard let thread else { return spawnFromThisThread() }
            var result: Int32 = 0
            thread.run { result = spawnFromThisThread() }
            return result
        }
        if let direct {
            status = spawn(direct.path, direct.arguments, direct.environment)
        }
        if direct == nil || status != 0 {
            status = spawn(Self.shell, [Self.shell, "-c", command], shellEnvironment())
        }
        guard status == 0 else {
            return .failed(Self.describeFailure(status, workingDirectory: job.workingDirectory))
        }
        return .spawned(pid)
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
    private static func describeFailure(_ code: Int32, workingDirectory: String) -> String {
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
        return "cannot run \(shell): \(message(code))"
    }

    private static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
