import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `opsrun` run on a pseudo-terminal of its own, as a user runs it from a terminal: the session
/// leader, with the terminal as its controlling one and as its standard input, output and error.
/// The test plays the user at the other end (the master side).
final class OpsrunOnTerminal {
    let pid: pid_t
    private var master: Int32
    /// Everything opsrun and its tasks wrote to the terminal so far, the terminal's echo included.
    private(set) var transcript = ""
    private var exitStatus: Int32?

    /// Starts `opsrun arguments` in `directory` on a new pseudo-terminal.
    convenience init(_ arguments: [String], in directory: URL, environment extra: [String: String] = [:]) throws {
        try self.init(words: [OpsrunBinary.path, "-C", directory.path] + arguments, environment: extra)
    }

    /// A user's interactive shell (bash, job control on, no start-up files) on a new
    /// pseudo-terminal, its prompt `ShellPrompt.text`: the test types opsrun's command line into it,
    /// and Ctrl-Z, `fg` and `bg`, as a user does.
    static func interactiveShell(environment extra: [String: String] = [:]) throws -> OpsrunOnTerminal {
        var environment = extra
        environment["PS1"] = shellPrompt
        environment["HISTFILE"] = "/dev/null"
        let terminal = try OpsrunOnTerminal(words: ["/bin/bash", "--norc", "--noprofile", "-i"], environment: environment)
        return terminal
    }

    /// The prompt of `interactiveShell`: unlike anything opsrun prints.
    static let shellPrompt = "shell-ready$ "

    /// Starts the program `words[0]` with the rest as its arguments on a new pseudo-terminal.
    private init(words: [String], environment extra: [String: String]) throws {
        // posix_openpt, unlockpt and ptsname by hand: Glibc's module leaves the X/Open ones out.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        let unlockRequest: UInt = 0x4004_5431  // TIOCSPTLCK
        let numberRequest: UInt = 0x8004_5430  // TIOCGPTN
        guard master >= 0, ioctl(master, unlockRequest, &unlock) == 0, ioctl(master, numberRequest, &number) == 0
        else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        let terminalPath = "/dev/pts/\(number)"
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        // A new session (glibc's POSIX_SPAWN_SETSID, 0x80) that has no controlling terminal yet:
        // the first terminal it opens without O_NOCTTY becomes it. glibc makes the session before
        // the file actions run.
        // And the signals a login shell gives: none blocked, every one at its default (the test
        // runner may block or ignore SIGTTOU, which would hide a stop at the terminal).
        posix_spawnattr_setflags(&attributes, Int16(0x80 | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawn_file_actions_addopen(&actions, 0, terminalPath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["TERM"] = "dumb"
        environment.removeValue(forKey: "GITHUB_ACTIONS")
        environment.merge(extra) { $1 }
        let argv = words.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, words[0], &actions, &attributes, argv, envp)
        guard status == 0 else {
            close(master)
            throw POSIXError(.init(rawValue: status) ?? .EIO)
        }
        pid = child
    }

    deinit {
        if exitStatus == nil {
            // A test that failed early: opsrun leads its own process group.
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        if master >= 0 { close(master) }
    }

    /// Reads what the terminal shows until `text` has appeared; false when it has not within
    /// `seconds`, or the terminal closed first.
    func read(until text: String, seconds: Double = OpsrunBinary.defaultDeadlineSeconds) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !transcript.contains(text) {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, readChunk(waitingMilliseconds: Int32(remaining * 1000)) else { return false }
        }
        return true
    }

    /// Reads until `text` has appeared after the first `offset` bytes of the transcript (its
    /// `utf8.count` taken before): a prompt or a line that also appeared earlier.
    func read(until text: String, after offset: Int, seconds: Double = OpsrunBinary.defaultDeadlineSeconds) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !String(decoding: transcript.utf8.dropFirst(offset), as: UTF8.self).contains(text) {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, readChunk(waitingMilliseconds: Int32(remaining * 1000)) else { return false }
        }
        return true
    }

    /// Reads what has come so far, without waiting.
    func readAvailable() {
        while readChunk(waitingMilliseconds: 0) {}
    }

    /// What the user types.
    func type(_ text: String) {
        var bytes = Array(text.utf8)
        _ = Glibc.write(master, &bytes, bytes.count)
    }

    /// opsrun's exit status (128 + N when a signal N ended it), reading the terminal meanwhile;
    /// nil when it has not exited within `seconds`.
    func waitForExit(seconds: Double = OpsrunBinary.defaultDeadlineSeconds) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                while readChunk(waitingMilliseconds: 0) {}
                let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f
                exitStatus = code
                return code
            }
            if !readChunk(waitingMilliseconds: 20) { usleep(20_000) }
        }
        return nil
    }

    /// Closes the master side, as a terminal window or an SSH connection closing does: the
    /// kernel hangs the terminal up and sends opsrun (its session leader) SIGHUP.
    func hangUp() {
        close(master)
        master = -1
    }

    /// One read within `waitingMilliseconds`; false when nothing came (or the terminal is closed).
    private func readChunk(waitingMilliseconds: Int32) -> Bool {
        guard master >= 0 else { return false }
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, waitingMilliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(master, &buffer, buffer.count)
        guard count > 0 else { return false }
        transcript += String(decoding: buffer[..<count], as: UTF8.self)
        return true
    }
}
