import Glibc
import OpsrunCore
import OpsrunEngine

/// Services kept up between the runs of `--watch` (docs/manual/watch.md). One runner serves every run while a
/// service is kept: a ready service that its run no longer needs is reported finished at once
/// (`keptRunning`) but its process runs on under an id of the runner's own (`keptID`), its events
/// dropped. The next run's start of the same service (same commands, directory, environment,
/// readiness) takes that process over and is ready at once; a definition that changed, or a
/// service the manifest no longer has, is stopped first (`stopKeptServices(keeping:)`), as all are
/// when the watch ends. One whose prerequisite ran again in this run is stale (a new port, a new
/// config): the engine says so once they are done (`discardKeptService(like:)`), it is stopped,
/// and the next start waits for its end before starting the service afresh. A kept service that
/// exits by itself is forgotten, and started again when next needed; one that exits while a run
/// uses it fails as any service does.
extension ProcessRunner {
    /// Ids of kept services: far below the operations' (≥ 0) and their probes' (-1 - id).
    static let keptIDBase = Int.min / 2

    static func isKeptID(_ id: Int) -> Bool { id <= keptIDBase }

    public var hasKeptServices: Bool { !keptJobs.isEmpty }

    /// `CommandRunner.stopService`: kept when this runner keeps services and it is up and ready,
    /// else terminated.
    public func stopService(jobID: Int) {
        guard keepsServices, let job = slots.first(where: { $0?.job.id == jobID }) ?? nil,
            job.job.service != nil, job.commandRunning, job.readiness == nil, job.mainEnd == nil,
            !job.isTerminating, job.watch == nil
        else { return terminate(jobID: jobID) }
        var result = JobResult(
            termination: .exited(0), commandIndex: job.commandIndex, terminatedByRequest: true,
            startNanoseconds: job.startNanoseconds, endNanoseconds: MonotonicClock.now())
        result.keptRunning = true
        pendingEvents.append(.finished(jobID: jobID, result))
        job.job.id = Self.keptIDBase - keptCount
        keptCount += 1
        keptJobs.append(job)
    }

    /// `job` is a service kept from an earlier run, still up and not stale: it goes on as `job`,
    /// ready now. Else a kept process of the same service, stopping, is waited for first, so
    /// that the new one finds its port free.
    func resume(_ job: CommandJob) -> Bool {
        guard let index = keptJobs.firstIndex(where: { Self.sameDefinition($0.job, job) && isUp($0) }) else {
            stopKept(keptJobs.filter { Self.sameDefinition($0.job, job) })
            return false
        }
        let kept = keptJobs.remove(at: index)
        kept.job.id = job.id
        pendingEvents.append(.ready(jobID: job.id, nanoseconds: MonotonicClock.now()))
        return true
    }

    /// `CommandRunner.discardKeptService(like:)`: a kept process of `job`'s service is stale; it
    /// gets its TERM now (the grace period, then KILL), and the next start of the service waits
    /// for its end.
    public func discardKeptService(like job: CommandJob) {
        let now = MonotonicClock.now()
        for kept in keptJobs where kept.commandRunning && !kept.isTerminating && Self.sameDefinition(kept.job, job) {
            kept.terminatedByRequest = true
            terminate(kept, immediately: false, now: now)
        }
    }

    /// Stops every kept service whose definition is not among `services` (those of the run about
    /// to start): TERM, the grace period, KILL, and waits for them, so that a restarted one finds
    /// its port free. A termination signal meanwhile kills them at once and is kept for the run.
    public func stopKeptServices(keeping services: [CommandJob] = []) {
        stopKept(keptJobs.filter { kept in !services.contains { Self.sameDefinition(kept.job, $0) } })
    }

    /// Stops `stopping` (kept services) as `stopKeptServices` does, and waits for their end.
    private func stopKept(_ stopping: [RunningJob]) {
        guard !stopping.isEmpty else { return }
        let now = MonotonicClock.now()
        for job in stopping where job.commandRunning {
            job.terminatedByRequest = true
            terminate(job, immediately: false, now: now)
        }
        var saved: [RunnerEvent] = []
        while stopping.contains(where: { job in keptJobs.contains { $0 === job } }) {
            var events = collectEvents()
            takeKeptEvents(&events)
            if events.contains(where: { if case .signal = $0 { true } else { false } }) {
                for job in stopping where job.commandRunning && !job.killed { killGroup(of: job) }
            }
            saved += events
        }
        pendingEvents += saved
    }

    /// Readable when a kept service wrote or ended (or a signal came): between runs `--watch`
    /// waits on it too, and then calls `serveKeptServices`, so that a service's output never
    /// fills its pipe and blocks it while nothing runs.
    public var keptServicesDescriptor: Int32? { keptJobs.isEmpty ? nil : poller.descriptor }

    /// Between runs: reads what kept services wrote (dropped: no run is there to show it) and
    /// forgets those that ended; returns a termination signal taken meanwhile. A Ctrl-Z suspends
    /// them and opsrun at once.
    public func serveKeptServices() -> Int32? {
        var events: [RunnerEvent] = []
        poller.wait(timeoutMilliseconds: 0) { token in handle(token, events: &events) }
        fireDeadlines(now: MonotonicClock.now(), events: &events)
        takeKeptEvents(&events)
        var signal: Int32?
        for event in events {
            if case .signal(let taken) = event {
                signal = signal ?? taken
            } else if event == .suspendRequested {
                suspend()
            } else {
                pendingEvents.append(event)
            }
        }
        return signal
    }

    /// Takes the kept services' events out of `events`; one that ended is forgotten.
    func takeKeptEvents(_ events: inout [RunnerEvent]) {
        events.removeAll { event in
            switch event {
            case .finished(let id, _) where Self.isKeptID(id):
                keptJobs.removeAll { $0.job.id == id }
                return true
            case .commandStarted(let id, _), .output(let id, _, _), .finished(let id, _):
                return Self.isKeptID(id)
            case .ready, .signal, .suspendRequested:
                return false
            }
        }
    }

    /// Still running, its exit not yet seen (it may have exited since the runner last looked).
    private func isUp(_ job: RunningJob) -> Bool {
        guard job.commandRunning, !job.isTerminating, job.watch == nil else { return false }
        var info = siginfo_t()
        let found = waitid(P_PID, id_t(job.pid), &info, WEXITED | WNOHANG | WNOWAIT)
        return found == 0 && info.si_signo == 0
    }

    /// What defines a service as the manifest gives it: the same means the process running can
    /// serve the run as well as a new one would.
    static func sameDefinition(_ a: CommandJob, _ b: CommandJob) -> Bool {
        a.taskName == b.taskName && a.commands == b.commands && a.workingDirectory == b.workingDirectory
            && a.arguments == b.arguments && a.cleanupCommands == b.cleanupCommands && a.service == b.service
            && a.timeoutMilliseconds == b.timeoutMilliseconds && a.qualityOfService == b.qualityOfService
            && a.shell == b.shell && a.shellPassesTaskName == b.shellPassesTaskName
            // As sets: a run's environment is built from a dictionary, whose order is its own.
            && (a.environment == b.environment || Set(a.environment) == Set(b.environment))
    }
}
