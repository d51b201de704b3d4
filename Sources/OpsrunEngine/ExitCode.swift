/// Every exit status opsrun uses, in one table (docs/manual/running.md).
///
/// A run that a signal interrupted exits 128 + the signal's number, as a shell reports a command
/// that the signal killed, and as make and ninja do: scripts that test for 130 after Ctrl-C keep
/// working whether the signal reached opsrun or a task.
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Everything succeeded or was allowed to fail.
    case success = 0
    /// A task failed.
    case failure = 1
    /// Usage or manifest error: bad YAML, unknown task, cycle.
    case usage = 2
    /// Interrupted by SIGHUP (128 + 1): the terminal or SSH session went away.
    case hungUp = 129
    /// Interrupted by SIGINT (128 + 2).
    case interrupted = 130
    /// Interrupted by SIGQUIT (128 + 3).
    case quit = 131
    /// Interrupted by SIGTERM (128 + 15).
    case terminated = 143

    /// The status of a run that `signal` interrupted.
    public static func interrupted(by signal: Int32) -> ExitCode {
        switch signal {
        case SignalNumber.hangUp: .hungUp
        case SignalNumber.quit: .quit
        case SignalNumber.terminate: .terminated
        default: .interrupted
        }
    }
}

/// The POSIX signal numbers the engine reasons about (the same on Linux and macOS).
public enum SignalNumber {
    public static let hangUp: Int32 = 1
    public static let interrupt: Int32 = 2
    public static let quit: Int32 = 3
    public static let terminate: Int32 = 15
}
