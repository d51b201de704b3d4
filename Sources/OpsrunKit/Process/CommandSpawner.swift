import CProcessShims
import Glibc

/// A command that was spawned: its pid (also its process group) and our ends of its pipes.
struct SpawnedCommand {
    var pid: pid_t
    /// -1 for an interactive command, which writes to opsrun's own outputs.
    var standardOutput: Int32
    var standardError: Int32
}

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
        case spawned(SpawnedCommand)
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

    init() {
        resetSignals = .allocate(capacity: 1)
        cps_non_default_signals(resetSignals)
    }

    deinit {
        stopThreads()
        resetSignals.deallocate()
    }

    func stopThreads() {
        for thread in priorityThreads.values {
            thread.stop()
        }
        priorityThreads = [:]
    }

    /// Spawns `command` for `job`: `direct` when given, falling back to the shell if that exec
    /// fails (the program went away since it was found, say). With `handOverTerminal`, the
    /// child's group becomes the terminal's foreground group before it runs.
    func spawn(
        _ command: String, of job: CommandJob, direct: DirectProgram?,
        shellEnvironment: () -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, handOverTerminal: Bool
    ) -> Outcome {
        var output: (read: Int32, write: Int32) = (-1, -1)
        var error: (read: Int32, write: Int32) = (-1, -1)
        defer {
            // The child has its own copies by now (or failed); ours must go, or EOF never comes.
            if output.write >= 0 { close(output.write) }
            if error.write >= 0 { close(error.write) }
        }
        if !job.interactive {
            guard let first = Self.makePipe() else {
                return .failed("cannot create a pipe: \(Self.message(errno))")
            }
            guard let second = Self.makePipe() else {
                let reason = Self.message(errno)
                close(first.read)
                close(first.write)
                return .failed("cannot create a pipe: \(reason)")
            }
            output = first
            error = second
        }
        let takeTerminal = handOverTerminal
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
                    job.workingDirectory.withCString { directory in
                        var request = cps_spawn_request(
                            path: path, arguments: arguments.pointer, environment: environment,
                            directory: directory, standard_output: output.write, standard_error: error.write,
                            take_terminal: takeTerminal ? 1 : 0, reset_signals: resetSignals)
                        return cps_spawn(&request, &pid)
                    }
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
            if output.read >= 0 { close(output.read) }
            if error.read >= 0 { close(error.read) }
            return .failed(Self.describeFailure(status, workingDirectory: job.workingDirectory))
        }
        return .spawned(
            SpawnedCommand(pid: pid, standardOutput: output.read, standardError: error.read))
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

    /// A pipe with both ends close-on-exec and the read end (ours) non-blocking; the child's end
    /// stays blocking, as a program expects of its standard output.
    private static func makePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard cps_pipe_cloexec(&ends) == 0 else { return nil }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        return (ends[0], ends[1])
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
