import OpsrunCore
import OpsrunReport

/// Everything one `opsrun` command line asks for, as plain values. The executable fills it in.
public struct Invocation: Sendable {
    public enum Action: Sendable {
        case run, list, graph, dryRun
        /// `--init`: write a starter manifest (docs/manual/fitting-in.md).
        case initialize
        /// The task and instance names, one a line: what the completion scripts offer.
        case taskNames
    }

    /// Task names as given, in order.
    public var targets: [String] = []
    /// `opsrun TASK -- ARG...`: what follows `--`, the positional parameters of the one task
    /// named before it (docs/manual/arguments.md). Empty when there is no `--` or nothing after it.
    public var taskArguments: [String] = []
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
    /// `--output`; `nil` when not given: prefixed, or grouped under GitHub Actions
    /// (`RunPrinter.Options.resolve`).
    public var outputMode: OutputMode?
    public var explain = false
    public var graceMilliseconds = 5000
    public var color: ColorChoice = .auto
    public var verbosity: Verbosity = .normal
    /// `-w/--watch` (docs/manual/watch.md): run, then run again what is out of date whenever a source of the
    /// tasks asked for, or the manifest, changes.
    public var watch = false
    /// `--report`, `--junit`, `--trace` (docs/manual/output-and-reports.md): files written when the run ends, as given.
    public var reportFiles: [(ReportFiles.Kind, String)] = []
    /// The output cache (docs/manual/cache.md): `--no-cache`, `--cache-dir`, `--cache-size` (bytes),
    /// `--remote-cache`, `--remote-cache-read-only`; the environment fills in what is not given.
    public var noCache = false
    public var cacheDirectory: String?
    public var cacheSizeLimit: UInt64?
    public var remoteCache: String?
    public var remoteCacheReadOnly = false

    public init() {}

    /// Processors this process may run on (the default of `-j`).
    public static var processorCount: Int { Processors.online }
}
