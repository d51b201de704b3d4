/// A runner that runs nothing: every started job finishes successfully at the next
/// `waitForEvents()`, in start order, so the engine's start order is the plan (ninja's dry run).
/// A service is ready at the next wait and finishes at the one after it is told to stop.
public final class DryRunRunner: CommandRunner {
    private var started: [CommandJob] = []
    private var services: [Int] = []
    private var stopping: [Int] = []

    public init() {}

    public func start(_ job: CommandJob) {
        if job.service != nil { services.append(job.id) } else { started.append(job) }
    }

    public func waitForEvents() -> [RunnerEvent] {
        defer {
            started.removeAll(keepingCapacity: true)
            services.removeAll()
            stopping.removeAll()
        }
        var events = services.map { RunnerEvent.ready(jobID: $0, nanoseconds: 0) }
        events += stopping.map { id in
            .finished(jobID: id, JobResult(termination: .signaled(15), commandIndex: 0, terminatedByRequest: true))
        }
        events += started.map { job in
            .finished(
                jobID: job.id,
                JobResult(termination: .exited(0), commandIndex: max(job.commands.count - 1, 0)))
        }
        return events
    }

    /// Nothing runs, so there is nothing to terminate; started jobs still finish at the next wait.
    public func terminateAll(immediately: Bool) {}

    /// Only services are told to stop in a dry run: each finishes at the next wait.
    public func terminate(jobID: Int) { stopping.append(jobID) }
}
