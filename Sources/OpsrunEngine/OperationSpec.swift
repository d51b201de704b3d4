/// One operation of a run, as the engine receives it: the lead converts the task graph into these.
///
/// The engine knows nothing of YAML or manifests; prerequisites are indices into the specs array.
public struct OperationSpec: Sendable {
    public var name: String
    /// Indices of the operations that must finish successfully (or be allowed to fail) first.
    public var prerequisites: [Int]
    public var priority: QueuePriority
    /// Index into `EngineConfiguration.queueBounds`; `nil` for the main queue only.
    public var queue: Int?
    /// The template of every attempt. The engine sets `id` to the operation's index and
    /// `interactive` to this spec's `interactive`. No commands makes a group: it finishes as soon
    /// as it is ready, without the runner, and never counts against `-j`.
    public var job: CommandJob
    /// How many more attempts after a failed one.
    public var retries: Int
    /// Its failure is a warning: dependents run and the exit code stays 0.
    public var allowFailure: Bool
    /// Runs alone: it waits until nothing executes, and nothing else starts while it does.
    public var interactive: Bool

    public init(
        name: String, prerequisites: [Int] = [], priority: QueuePriority = .normal,
        queue: Int? = nil, job: CommandJob, retries: Int = 0, allowFailure: Bool = false,
        interactive: Bool = false
    ) {
        self.name = name
        self.prerequisites = prerequisites
        self.priority = priority
        self.queue = queue
        self.job = job
        self.retries = retries
        self.allowFailure = allowFailure
        self.interactive = interactive
    }

    /// A group runs nothing itself.
    public var isGroup: Bool { job.commands.isEmpty }

    /// Runs beside its dependents until none needs it (docs/manual/ci.md).
    public var isService: Bool { job.service != nil }
}

/// The bounds and policy of one run.
public struct EngineConfiguration: Sendable {
    /// `-j`: at most this many operations execute at once (≥ 1).
    public var maxConcurrentOperationCount: Int
    /// The bound of each named queue (≥ 1), indexed by `OperationSpec.queue`.
    public var queueBounds: [Int]
    /// `-k`: after a failure, keep running everything that does not depend on it.
    public var keepGoing: Bool

    public init(maxConcurrentOperationCount: Int, queueBounds: [Int] = [], keepGoing: Bool = false)
    {
        self.maxConcurrentOperationCount = maxConcurrentOperationCount
        self.queueBounds = queueBounds
        self.keepGoing = keepGoing
    }
}
