/// A runner that runs nothing: every started job finishes successfully at the next
/// `waitForEvents()`, in start order, so the engine's start order is the plan (ninja's dry run).
public final class DryRunRunner: CommandRunner {
    private var started: [CommandJob] = []

    public init() {}

    public func start(_ job: CommandJob) {
        started.append(job)
    }

    public func waitForEvents() -> [RunnerEvent] {
        defer { started.removeAll(keepingCapacity: true) }
        return started.map { job in
            .finished(
                jobID: job.id,
                JobResult(termination: .exited(0), commandIndex: max(job.commands.count - 1, 0)))
        }
    }

    /// Nothing runs, so there is nothing to terminate; started jobs still finish at the next wait.
    public func terminateAll(immediately: Bool) {}
}
