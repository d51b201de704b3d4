/// Every exit status opsrun uses, in one table (SPEC §4).
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Everything succeeded or was allowed to fail.
    case success = 0
    /// A task failed.
    case failure = 1
    /// Usage or manifest error: bad YAML, unknown task, cycle.
    case usage = 2
    /// Interrupted by SIGINT (128 + 2).
    case interrupted = 130
    /// Interrupted by SIGTERM (128 + 15).
    case terminated = 143

    /// The status of a run that `signal` interrupted.
    public static func interrupted(by signal: Int32) -> ExitCode {
        signal == SignalNumber.terminate ? .terminated : .interrupted
    }
}

/// The POSIX signal numbers the engine reasons about (the same on Linux and macOS).
public enum SignalNumber {
    public static let interrupt: Int32 = 2
    public static let terminate: Int32 = 15
}
