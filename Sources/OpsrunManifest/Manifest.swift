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
    /// The root manifest's `dotenv:` files, relative to `directory`, loaded when present (an
    /// included manifest's are its namespace's: `NamespaceSpec.dotenvFiles`).
    public var dotenvFiles: [Located<String>]
    /// `queues:` in the order written.
    public var queues: [QueueSpec]
    /// `tasks:` in the order written (manifest order breaks scheduling ties), then the tasks of
    /// the included manifests, named with their namespace (`web:build`, docs/manual/includes.md).
    public var tasks: [TaskSpec]
    /// The included manifests (`includes:`, nested ones too), in the order read; empty without includes.
    public var namespaces: [NamespaceSpec] = []
    /// Every file read or looked for besides the manifest itself, with its digest: the manifest
    /// cache is valid only while each is what it was.
    public var includedFiles: [IncludedFile] = []
    /// The root manifest's `pass_env:`: names (or `*` globs) of opsrun's environment that reach
    /// every task's commands, its included manifests' too, without entering the cache key (an
    /// included manifest's own are in its tasks' `passEnvironment`).
    public var passEnvironment: [Located<String>] = []
    /// `deps` entries `:NAME` of a manifest run on its own (not included) naming no task of it:
    /// the root they mean is not loaded. A run of such a task is an error; other tasks still run.
    public var rootReferences: [RootReference] = []

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
    /// refer to `${NAME}`. The files it lists are more sources of the task (docs/manual/depfiles.md).
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
    /// `cache: false`: never restored from nor stored in the output cache (docs/manual/cache.md).
    public var cache = true
    /// `requires:` variables that must be set and not empty for the task to run (docs/manual/variables.md).
    public var requires: [Located<String>] = []
    /// The directory of the included manifest that declared the task, relative to the root
    /// manifest's directory (or absolute): the base of its `dir` and its default working
    /// directory. `nil` for a task of the root manifest.
    public var baseDirectory: String?
    /// `each:`: the task is one operation per value (docs/manual/each.md). Kept as written; `TaskInstances`
    /// expands it when a run starts.
    public var each: EachSpec?
    /// `service: true` and its readiness (docs/manual/ci.md); `nil` for any other task.
    public var service: ServiceSpec?
    /// `cleanup:` commands, run after `run` however it ended (docs/manual/ci.md).
    public var cleanup: [Located<String>] = []
    /// `shell:` of the task, else of the manifest that declares it; `nil`: `sh` (`ShellSpec.sh`).
    public var shell: ShellSpec?
    /// `pass_env:` of the task and of the manifest that declares it: variables of opsrun's
    /// environment its commands see even where the strict environment of a cacheable task applies.
    public var passEnvironment: [Located<String>] = []
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

    /// The task's working directory relative to the root manifest's directory (or absolute),
    /// given its `dir` with variables expanded: `nil` for the root manifest's own directory.
    public func workingDirectory(expandedDir dir: String?) -> String? {
        guard let base = baseDirectory else { return dir }
        guard let dir else { return base }
        return dir.hasPrefix("/") ? dir : base + "/" + dir
    }
}

/// An included manifest (docs/manual/includes.md): `opsrun web` runs its `default`, `--list` groups its tasks.
public struct NamespaceSpec: Equatable, Sendable {
    /// The full namespace, `web` or `web:ui`.
    public var name: String
    /// The included file as messages show it.
    public var file: String
    /// Its directory relative to the root manifest's (or absolute).
    public var directory: String
    /// Its `default`, with full names.
    public var defaultTasks: [String]
    /// Where the `includes` entry is written.
    public var location: SourceLocation
    /// Its `dotenv` files, relative to the root manifest's directory (or absolute): read for its
    /// own tasks (and those of the manifests it includes), on top of the root's `env`.
    public var dotenvFiles: [Located<String>]

    public init(
        name: String, file: String, directory: String, defaultTasks: [String], location: SourceLocation,
        dotenvFiles: [Located<String>] = []
    ) {
        self.name = name
        self.file = file
        self.directory = directory
        self.defaultTasks = defaultTasks
        self.location = location
        self.dotenvFiles = dotenvFiles
    }
}

/// A file the loader read (or looked for and did not find) to include it.
public struct IncludedFile: Equatable, Sendable {
    /// Absolute.
    public var path: String
    /// As messages show it.
    public var displayName: String
    /// Its bytes' digest (`ManifestCache.digest`); `nil` when there was no file there.
    public var digest: [UInt8]?

    public init(path: String, displayName: String, digest: [UInt8]?) {
        self.path = path
        self.displayName = displayName
        self.digest = digest
    }
}

/// `deps: [":codegen"]` in a manifest run on its own that has no task `codegen`.
public struct RootReference: Equatable, Sendable {
    public var task: String
    public var reference: Located<String>

    public init(task: String, reference: Located<String>) {
        self.task = task
        self.reference = reference
    }
}
