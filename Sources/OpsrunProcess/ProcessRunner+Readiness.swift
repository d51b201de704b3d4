import OpsrunCore
import OpsrunEngine

/// A service's readiness (docs/manual/ci.md): its `ready` probe is a job of the runner's own, spawned like
/// any command, tried at once and then after 100 ms, 200 ms, … up to every second, on the run
/// loop's deadlines (no thread sleeps). Its events never reach the engine: it learns `.ready`.
extension ProcessRunner {
    static let firstProbeDelay: UInt64 = 100_000_000
    static let longestProbeDelay: UInt64 = 1_000_000_000

    /// A probe's job id: negative, so it never meets an operation's.
    static func probeID(of serviceID: Int) -> Int { -1 - serviceID }

    /// The service's command was spawned: ready now without a probe, else its probing begins.
    func startReadiness(of job: RunningJob) {
        guard let service = job.job.service, job.commandRunning else { return }
        let now = MonotonicClock.now()
        guard service.probe != nil else {
            pendingEvents.append(.ready(jobID: job.job.id, nanoseconds: now))
            return
        }
        job.readiness = RunningJob.Readiness(
            deadline: now + UInt64(max(0, service.timeoutMilliseconds)) * 1_000_000, nextProbe: now,
            delay: Self.firstProbeDelay)
    }

    /// Starts the probe when it is due; past the deadline, the service is terminated as not ready.
    func fireReadiness(of job: RunningJob, now: UInt64) {
        guard var readiness = job.readiness, let service = job.job.service, let probe = service.probe else { return }
        if now >= readiness.deadline {
            job.serviceFailure = .notReady(afterMilliseconds: service.timeoutMilliseconds)
            stopProbing(job)
            // Ended as a timed-out job is: its group terminated, its end waited for.
            job.timedOut = true
            terminate(job, immediately: false, now: now)
            return
        }
        guard let next = readiness.nextProbe, now >= next else { return }
        readiness.nextProbe = nil
        job.readiness = readiness
        var probeJob = CommandJob(
            id: Self.probeID(of: job.job.id), taskName: job.job.taskName, commands: [probe],
            workingDirectory: job.job.workingDirectory, environment: job.job.environmentParts,
            qualityOfService: job.job.qualityOfService)
        probeJob.shell = job.job.shell
        probeJob.shellPassesTaskName = job.job.shellPassesTaskName
        probesRunning += 1
        start(probeJob)
    }

    /// Takes the probes' events out of `events`: a probe that succeeded makes its service `.ready`;
    /// one that failed is tried again after the next delay.
    func takeProbeEvents(_ events: inout [RunnerEvent]) {
        guard events.contains(where: Self.isProbeEvent) else { return }
        var kept: [RunnerEvent] = []
        for event in events {
            guard Self.isProbeEvent(event) else {
                kept.append(event)
                continue
            }
            guard case .finished(let probeID, let result) = event else { continue }
            probesRunning -= 1
            let serviceID = -1 - probeID
            guard let service = slots.first(where: { $0?.job.id == serviceID }) ?? nil,
                service.commandRunning, var readiness = service.readiness
            else { continue }
            let now = MonotonicClock.now()
            if result.succeeded {
                service.readiness = nil
                kept.append(.ready(jobID: serviceID, nanoseconds: now))
            } else {
                readiness.nextProbe = now + readiness.delay
                readiness.delay = min(readiness.delay * 2, Self.longestProbeDelay)
                service.readiness = readiness
            }
        }
        events = kept
    }

    private static func isProbeEvent(_ event: RunnerEvent) -> Bool {
        switch event {
        case .commandStarted(let id, _), .output(let id, _, _), .finished(let id, _): id < 0 && !isKeptID(id)
        case .ready, .signal, .suspendRequested: false
        }
    }

    /// The service ended or gave up: no more probes, and a running one is killed.
    func stopProbing(_ job: RunningJob) {
        job.readiness = nil
        let probeID = Self.probeID(of: job.job.id)
        for case let probe? in slots where probe.job.id == probeID && probe.commandRunning {
            killGroup(of: probe)
        }
    }
}
