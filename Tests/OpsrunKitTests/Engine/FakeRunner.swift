import OpsrunKit
@testable import OpsrunEngine

/// A scripted runner in virtual time: each task's result per attempt and its duration in ticks are
/// written by the test; it records what started, when, and what was executing alongside.
final class FakeRunner: CommandRunner {
    /// Per task name, the termination of attempt 1, 2, …; attempts past the list exit 0.
    var terminations: [String: [Termination]] = [:]
    /// Per task name, ticks an attempt runs; 1 when not given.
    var durations: [String: Int] = [:]
    /// Signals delivered when virtual time reaches their tick (before jobs ending at that tick).
    var signals: [(tick: Int, signal: Int32)] = []
    /// Tasks whose processes ignore SIGTERM: only `terminateAll(immediately: true)` ends them early.
    var ignoresTermination: Set<String> = []
    /// Per service name, ticks until it is ready; 1 when not given. A service runs until it is
    /// terminated unless `durations` says otherwise.
    var readyAfter: [String: Int] = [:]
    /// Per job id, the tick at which `terminate(jobID:)` was called.
    private(set) var terminatedAt: [Int: Int] = [:]
    /// Per task name, bytes it writes to standard output when it starts.
    var outputs: [String: [UInt8]] = [:]
    /// Services whose kept process the engine said was stale (`discardKeptService(like:)`), in order.
    private(set) var discardedServices: [String] = []

    struct Start: Equatable {
        var name: String
        var attempt: Int
        var tick: Int
        /// Names executing right after this start, itself included, in start order.
        var executing: [String]
    }

    private(set) var now = 0
    private(set) var starts: [Start] = []
    /// The `immediately` argument of each `terminateAll` call.
    private(set) var terminateCalls: [Bool] = []

    private struct Running {
        var job: CommandJob
        var attempt: Int
        var startTick: Int
        var endTick: Int
        var killedBy: Int32?
        var readyTick: Int?
    }
    private var running: [Running] = []
    private var attempts: [String: Int] = [:]
    private var immediateEvents: [RunnerEvent] = []

    /// Task names in start order, one per attempt.
    var startOrder: [String] { starts.map(\.name) }

    func start(_ job: CommandJob) {
        precondition(!job.commands.isEmpty, "a group reached the runner: \(job.taskName)")
        precondition(
            !running.contains { $0.job.id == job.id }, "job id \(job.id) is already running")
        let attempt = attempts[job.taskName, default: 0] + 1
        attempts[job.taskName] = attempt
        let isService = job.service != nil
        let duration = durations[job.taskName] ?? (isService ? 1_000_000 : 1)
        running.append(
            Running(
                job: job, attempt: attempt, startTick: now, endTick: now + duration, killedBy: nil,
                readyTick: isService ? now + readyAfter[job.taskName, default: 1] : nil))
        starts.append(
            Start(
                name: job.taskName, attempt: attempt, tick: now,
                executing: running.map(\.job.taskName)))
        immediateEvents.append(.commandStarted(jobID: job.id, commandIndex: 0))
        if let bytes = outputs[job.taskName] {
            immediateEvents.append(.output(jobID: job.id, .standardOutput, bytes))
        }
    }

    func discardKeptService(like job: CommandJob) {
        discardedServices.append(job.taskName)
    }

    func waitForEvents() -> [RunnerEvent] {
        precondition(!running.isEmpty || !signals.isEmpty, "waitForEvents() with nothing running or coming")
        var events = immediateEvents
        immediateEvents.removeAll()
        let nextReady = running.compactMap(\.readyTick).min() ?? .max
        let nextEnd = min(running.map(\.endTick).min() ?? .max, nextReady)
        if let suspension = suspensions.first, suspension <= nextEnd {
            suspensions.removeFirst()
            now = max(now, suspension)
            return events + [.suspendRequested]
        }
        if let signal = signals.first, signal.tick <= nextEnd {
            signals.removeFirst()
            now = max(now, signal.tick)
            return events + [.signal(signal.signal)]
        }
        now = nextEnd
        for index in running.indices where running[index].readyTick == now && running[index].endTick > now {
            running[index].readyTick = nil
            events.append(.ready(jobID: running[index].job.id, nanoseconds: UInt64(now)))
        }
        for job in running where job.endTick == now {
            events.append(.finished(jobID: job.job.id, result(of: job)))
        }
        running.removeAll { $0.endTick == now }
        return events
    }

    /// Ticks at which a Ctrl-Z comes (`.suspendRequested`).
    var suspensions: [Int] = []
    /// The tasks executing at each `suspend()`.
    private(set) var suspendedWhile: [[String]] = []

    func suspend() {
        suspendedWhile.append(running.map(\.job.taskName))
    }

    func terminateAll(immediately: Bool) {
        terminateCalls.append(immediately)
        for index in running.indices
        where immediately || !ignoresTermination.contains(running[index].job.taskName) {
            running[index].endTick = now
            running[index].killedBy = immediately ? 9 : 15
        }
    }

    func terminate(jobID: Int) {
        terminatedAt[jobID] = now
        for index in running.indices where running[index].job.id == jobID {
            running[index].endTick = now
            running[index].killedBy = 15
        }
    }

    private func result(of job: Running) -> JobResult {
        let scripted = terminations[job.job.taskName] ?? []
        let termination =
            job.killedBy.map { .signaled($0) }
            ?? (job.attempt <= scripted.count ? scripted[job.attempt - 1] : .exited(0))
        return JobResult(
            termination: termination, commandIndex: 0, terminatedByRequest: job.killedBy != nil,
            startNanoseconds: UInt64(job.startTick), endNanoseconds: UInt64(job.endTick))
    }

    /// The most tasks that executed at once, counting only `names` when given.
    func maxExecuting(among names: Set<String>? = nil) -> Int {
        starts.map { start in start.executing.filter { names?.contains($0) ?? true }.count }.max()
            ?? 0
    }
}

/// Records every event of a run, in order.
final class EventRecorder: RunObserver {
    private(set) var events: [RunEvent] = []

    func handle(_ event: RunEvent) {
        events.append(event)
    }

    /// Indices of operations in the order their first attempt started (groups included).
    var startedIndices: [Int] {
        events.compactMap {
            if case .operationStarted(let index, 1) = $0 { index } else { nil }
        }
    }
}
