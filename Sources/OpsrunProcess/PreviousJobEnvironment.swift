import OpsrunEngine
/// The job environment something was last made from, to tell when the next job's differs only in
/// its `OPSRUN_TASK`: the very same shared array (`JobEnvironment.sameStorage`) with another task
/// name. Then only the task entry, which follows the shared ones, needs swapping; nothing is
/// compared entry by entry.
struct PreviousJobEnvironment {
    private var shared: [String]?
    private var taskName: String?

    enum Difference {
        /// The same environment.
        case none
        /// Another task of the same shared block: its entry, at `index` (after the shared ones).
        case task(entry: String, index: Int)
        /// Anything else: compare or rebuild, then `remember` it.
        case other
    }

    /// How `environment` differs from the previous one; a `.task` difference counts as made.
    mutating func difference(to environment: JobEnvironment) -> Difference {
        guard let taskName = environment.taskName, let previousTask = self.taskName, let shared,
            environment.own.isEmpty, JobEnvironment.sameStorage(environment.shared, shared)
        else { return .other }
        if taskName == previousTask { return .none }
        self.taskName = taskName
        return .task(entry: JobEnvironment.taskEntry(taskName), index: shared.count)
    }

    mutating func remember(_ environment: JobEnvironment) {
        guard environment.own.isEmpty else { return forget() }
        shared = environment.shared
        taskName = environment.taskName
    }

    mutating func forget() {
        shared = nil
        taskName = nil
    }
}
