#if canImport(Glibc)
    import Glibc
#endif

/// Everything one `opsrun` command line asks for, as plain values. The executable fills it in.
public struct Invocation: Sendable {
    public enum Action: Sendable { case run, list, graph, dryRun }
    public enum Verbosity: Sendable { case quiet, normal, verbose }

    /// Task names as given, in order.
    public var targets: [String] = []
    /// `NAME=VALUE` arguments, in order; later ones win.
    public var variables: [(name: String, value: String)] = []
    public var manifestFile: String?
    /// `-C DIR`: where to start, instead of the current directory.
    public var directory: String?
    public var jobs: Int = Invocation.processorCount
    public var keepGoing = false
    public var force = false
    public var action: Action = .run
    public var format: OutputFormat = .text
    public var outputMode: OutputMode = .prefixed
    public var explain = false
    public var graceMilliseconds = 5000
    public var color: ColorChoice = .auto
    public var verbosity: Verbosity = .normal
    /// `--report`, `--junit`, `--trace` (SPEC §8): files written when the run ends, as given.
    public var reportFiles: [(ReportFiles.Kind, String)] = []

    public init() {}

    /// Processors this process may run on (the default of `-j`).
    public static var processorCount: Int {
        Int(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}

/// How task output is shown while running (SPEC §7).
public enum OutputMode: String, CaseIterable, Sendable {
    /// Each whole line as it comes, prefixed with the task's name.
    case prefixed
    /// A task's whole output in one block when it ends.
    case grouped
    /// Passed through as it comes.
    case interleaved
}

/// `--color`.
public enum ColorChoice: String, CaseIterable, Sendable {
    case auto, always, never
}

/// opsrun's version, printed by `--version`.
public enum OpsrunVersion {
    public static let current = "0.1.0"
}
