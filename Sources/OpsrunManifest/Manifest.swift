import OpsrunCore
import OpsrunEngine
/// A validated `Tasksfile.yaml`: plain values with the place each was written.
///
/// Produced by `ManifestLoader`; consumed by `TaskGraph`. Knows nothing of processes.
public struct Manifest: Equatable, Sendable {
    /// The manifest file as the user should see it in messages.
    public var file: String
    /// The directory holding the manifest: the base of relative paths, the default working directory.
    public var directory: String
    /// The task(s) run when none is named on the command line.
    public var defaultTasks: [Located<String>]
    /// `env:` in the order written; values may refer to `${NAME}`.
    public var environment: [EnvironmentEntry]
    /// `dotenv:` files, relative to `directory`, loaded when present.
    public var dotenvFiles: [Located<String>]
    /// `queues:` in the order written.
    public var queues: [QueueSpec]
    /// `tasks:` in the order written (manifest order breaks scheduling ties).
    public var tasks: [TaskSpec]

    public init(
        file: String, directory: String, defaultTasks: [Located<String>] = [],
        environment: [EnvironmentEntry] = [], dotenvFiles: [Located<String>] = [],
        queues: [QueueSpec] = [], tasks: [TaskSpec] = []
    ) {
        self.file = file
        self.directory = directory
        self.defaultTasks = defaultTasks
        self.environment = environment
        self.dotenvFiles = dotenvFiles
        self.queues = queues
        self.tasks = tasks
    }
}

/// `NAME: value` in an `env:` mapping.
public struct EnvironmentEntry: Hashable, Sendable {
    public var name: String
    /// As written; `${NAME}` refers to the environment at that point, `$$` is a literal `$`.
    public var value: String
    public var location: SourceLocation

    public init(name: String, value: String, location: SourceLocation) {
        self.name = name
        self.value = value
        self.location = location
    }
}

/// A named bounded queue from `queues:` (ninja's pools).
public struct QueueSpec: Hashable, Sendable {
    public var name: String
    /// At most this many of the queue's tasks execute at once, inside the global `-j` bound.
    public var maxConcurrent: Int
    public var location: SourceLocation

    public init(name: String, maxConcurrent: Int, location: SourceLocation) {
        self.name = name
        self.maxConcurrent = maxConcurrent
        self.location = location
    }
}

/// One entry of `tasks:`.
public struct TaskSpec: Equatable, Sendable {
    public var name: String
    /// Where the task's name is written.
    public var location: SourceLocation
    public var description: String?
    /// Prerequisites by name, each with the place of its entry in `deps`.
    public var deps: [Located<String>]
    /// Commands run in order by `/bin/sh -c`; empty for a group.
    public var commands: [Located<String>]
    /// Working directory, relative to the manifest's directory; may refer to `${NAME}`.
    public var directory: Located<String>?
    public var environment: [EnvironmentEntry]
    public var sources: [Located<String>]
    public var outputs: [Located<String>]
    /// A Makefile-syntax dependency file the commands write, relative to the task's directory; may
    /// refer to `${NAME}`. The files it lists are more sources of the task (SPEC §10).
    public var depfile: Located<String>?
    /// Name of a queue from `queues:`; `nil` for the main queue only.
    public var queue: Located<String>?
    public var priority: QueuePriority
    public var qualityOfService: QualityOfService
    /// Milliseconds a single attempt may run before its process group is terminated.
    public var timeoutMilliseconds: Int?
    /// How many more times to run after a failure.
    public var retries: Int
    public var allowFailure: Bool
    /// Runs alone with the terminal as its standard input and output.
    public var interactive: Bool
    /// `cache: false`: never restored from nor stored in the output cache (SPEC §12).
    public var cache = true
    /// `requires:` variables that must be set and not empty for the task to run (SPEC §10).
    public var requires: [Located<String>] = []
    /// `each:`: the task is one operation per value (SPEC §10). Kept as written; `TaskInstances`
    /// expands it when a run starts.
    public var each: EachSpec?
    /// Set on an instance of an `each` task only (`compile[src/a.c]`): its variables' values.
    public var instance: TaskInstance?

    public init(
        name: String, location: SourceLocation, description: String? = nil,
        deps: [Located<String>] = [], commands: [Located<String>] = [],
        directory: Located<String>? = nil, environment: [EnvironmentEntry] = [],
        sources: [Located<String>] = [], outputs: [Located<String>] = [],
        depfile: Located<String>? = nil, queue: Located<String>? = nil, priority: QueuePriority = .normal,
        qualityOfService: QualityOfService = .default, timeoutMilliseconds: Int? = nil,
        retries: Int = 0, allowFailure: Bool = false, interactive: Bool = false,
        each: EachSpec? = nil, instance: TaskInstance? = nil
    ) {
        self.name = name
        self.location = location
        self.description = description
        self.deps = deps
        self.commands = commands
        self.directory = directory
        self.environment = environment
        self.sources = sources
        self.outputs = outputs
        self.depfile = depfile
        self.queue = queue
        self.priority = priority
        self.qualityOfService = qualityOfService
        self.timeoutMilliseconds = timeoutMilliseconds
        self.retries = retries
        self.allowFailure = allowFailure
        self.interactive = interactive
        self.each = each
        self.instance = instance
    }

    /// A task with only `deps`: it runs nothing itself.
    public var isGroup: Bool { commands.isEmpty }
}
