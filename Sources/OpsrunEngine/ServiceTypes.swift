/// What makes a job a service (docs/manual/ci.md): it runs beside its dependents, which start once its
/// readiness probe succeeds (or, without one, once it has started).
///
/// A class: every job holds this optional, and a reference keeps the common job (no service)
/// one word larger rather than four.
public final class ServiceReadiness: Sendable, Equatable {
    /// `ready:` run by `/bin/sh -c` in the job's directory and environment, tried at once, then
    /// after 100 ms, backing off to every second, until it exits 0.
    public let probe: String?
    /// `ready_timeout`: past it, a service not yet ready is terminated and fails.
    public let timeoutMilliseconds: Int

    public static let defaultTimeoutMilliseconds = 60_000

    public init(probe: String?, timeoutMilliseconds: Int = ServiceReadiness.defaultTimeoutMilliseconds) {
        self.probe = probe
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    public static func == (a: ServiceReadiness, b: ServiceReadiness) -> Bool {
        a.probe == b.probe && a.timeoutMilliseconds == b.timeoutMilliseconds
    }
}

/// The rare parts of a `JobResult`, behind one reference: results are kept for every operation of
/// a run (10,000 for a no-op of 10,000 tasks), and these would double each one's size.
final class JobResultExtras: Sendable, Equatable {
    let serviceFailure: ServiceFailure?
    let cleanupFailure: CleanupFailure?
    let keptRunning: Bool

    init?(serviceFailure: ServiceFailure?, cleanupFailure: CleanupFailure?, keptRunning: Bool) {
        if serviceFailure == nil && cleanupFailure == nil && !keptRunning { return nil }
        self.serviceFailure = serviceFailure
        self.cleanupFailure = cleanupFailure
        self.keptRunning = keptRunning
    }

    static func == (a: JobResultExtras, b: JobResultExtras) -> Bool {
        a.serviceFailure == b.serviceFailure && a.cleanupFailure == b.cleanupFailure && a.keptRunning == b.keptRunning
    }
}

/// Why a job failed because of a service rather than its own commands.
public enum ServiceFailure: Sendable, Equatable {
    /// The service's probe never succeeded within its `ready_timeout`; how the last probe that
    /// ended did, if one did.
    case notReady(afterMilliseconds: Int, lastProbe: ProbeEnd?)
    /// The service's probe cannot run (exit 126 or 127: not found, not executable): retrying it
    /// cannot help, so the service fails at once.
    case probeCannotRun(ProbeEnd)
    /// The service's command ended before its probe succeeded.
    case exitedBeforeReady
    /// The service ended on its own while tasks still needed it.
    case exitedWhileNeeded
    /// A dependent was terminated because the service it needed exited (`service 'db' exited (exit 1)`).
    case serviceExited(name: String, Termination)
}

/// A `cleanup:` command that failed: a warning, never the task's result.
public struct CleanupFailure: Sendable, Equatable {
    /// Index in `CommandJob.cleanupCommands`.
    public var commandIndex: Int
    public var termination: Termination
    /// It could not be started at all; says why.
    public var spawnFailure: String?

    public init(commandIndex: Int, termination: Termination, spawnFailure: String? = nil) {
        self.commandIndex = commandIndex
        self.termination = termination
        self.spawnFailure = spawnFailure
    }
}

/// How a service's `ready` probe ended, as a failure shows it (docs/manual/ci.md).
public struct ProbeEnd: Sendable, Equatable {
    public var termination: Termination
    /// The last line it wrote (standard error first: where a program says what went wrong), or
    /// why it could not start; empty when it wrote nothing.
    public var lastLine: String

    public init(termination: Termination, lastLine: String) {
        self.termination = termination
        self.lastLine = lastLine
    }

    /// The exit statuses of a command the shell could not run: 126 found but not executable,
    /// 127 not found.
    public var cannotRun: Bool { termination == .exited(126) || termination == .exited(127) }
}
