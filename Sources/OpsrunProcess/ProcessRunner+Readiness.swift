import OpsrunCore
import OpsrunEngine

/// A service's readiness (docs/manual/ci.md): its `ready` probe is a job of the runner's own, spawned like
/// any command, tried at once and then after 100 ms, 200 ms, … up to every second, on the run
/// loop's deadlines (no thread sleeps). Its events never reach the engine: it learns `.ready`, or
/// the service's failure. A probe that cannot run (exit 126 or 127) fails the service at once;
/// past `ready_timeout`, the failure says how the last probe ended and the last line it wrote.
extension ProcessRunner {
    static let firstProbeDelay: UInt64 = 100_000_000
    static let longestProbeDelay: UInt64 = 1_000_000_000
    /// What is kept of each of a probe's streams: its last line is all a failure shows.
    static let probeTailBytes = 2048
    /// A probe that started longer ago than this when the deadline came means opsrun did not run
    /// for a while (stopped with SIGSTOP from elsewhere, or starved): probes run at least every
    /// second, so a fast probe always started within about a second of the deadline.
    static let staleProbe: UInt64 = 2_000_000_000
    /// How long the last probe, given after such a pause, may take.
    static let lastProbeTime: UInt64 = 2_000_000_000
    /// The longest last line a failure shows, in characters.
    static let probeLineCharacters = 200

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
            delay: Self.firstProbeDelay, lastProbeStarted: now)
    }

    /// A wait that came back more than a second after the deadline it asked for means opsrun did
    /// not run meanwhile (stopped with SIGSTOP from elsewhere, or starved): no probe could run, so
    /// each service waiting to be ready gets that time back on its `ready_timeout`. Its tasks ran,
    /// so their timeouts keep counting.
    func forgiveReadinessForTimeNotRunning(since asleep: UInt64, asked milliseconds: Int32) {
        let woke = MonotonicClock.now()
        let expected = asleep + UInt64(milliseconds) * 1_000_000
        guard woke > expected, woke - expected > 1_000_000_000 else { return }
        for case let job? in slots {
            guard var readiness = job.readiness else { continue }
            readiness.deadline &+= woke - expected
            job.readiness = readiness
        }
    }

    /// Starts the probe when it is due; past the deadline, the service is terminated as not ready.
    func fireReadiness(of job: RunningJob, now: UInt64) {
        guard var readiness = job.readiness, let service = job.job.service, let probe = service.probe else { return }
        if now >= readiness.deadline, !readiness.hadLastProbe, readiness.nextProbe != nil,
            now - readiness.lastProbeStarted > Self.staleProbe
        {
            // The stop may have come anywhere, outside the wait that forgives it too: the probes
            // that failed ran before the service could be ready; one more, now, decides.
            readiness.hadLastProbe = true
            readiness.deadline = now + Self.lastProbeTime
            readiness.nextProbe = now
        }
        if now >= readiness.deadline {
            job.serviceFailure = .notReady(afterMilliseconds: service.timeoutMilliseconds, lastProbe: readiness.lastProbe)
            stopProbing(job)
            // Ended as a timed-out job is: its group terminated, its end waited for.
            job.timedOut = true
            terminate(job, immediately: false, now: now)
            return
        }
        guard let next = readiness.nextProbe, now >= next else { return }
        readiness.nextProbe = nil
        readiness.lastProbeStarted = now
        readiness.probeOutput = []
        readiness.probeError = []
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

    /// Takes the probes' events out of `events`: what a probe writes is kept (its tail); a probe
    /// that succeeded makes its service `.ready`; one that cannot run fails it; one that failed
    /// is tried again after the next delay.
    func takeProbeEvents(_ events: inout [RunnerEvent]) {
        guard events.contains(where: Self.isProbeEvent) else { return }
        var kept: [RunnerEvent] = []
        for event in events {
            guard Self.isProbeEvent(event) else {
                kept.append(event)
                continue
            }
            switch event {
            case .output(let probeID, let stream, let bytes):
                guard let service = probing(-1 - probeID), var readiness = service.readiness else { continue }
                switch stream {
                case .standardOutput: Self.keepTail(of: bytes, in: &readiness.probeOutput)
                case .standardError: Self.keepTail(of: bytes, in: &readiness.probeError)
                }
                service.readiness = readiness
            case .finished(let probeID, let result):
                probesRunning -= 1
                let serviceID = -1 - probeID
                guard let service = probing(serviceID), var readiness = service.readiness else { continue }
                let now = MonotonicClock.now()
                if result.succeeded {
                    service.readiness = nil
                    kept.append(.ready(jobID: serviceID, nanoseconds: now))
                    continue
                }
                let end = ProbeEnd(
                    termination: result.termination,
                    lastLine: result.spawnFailure ?? Self.lastLine(error: readiness.probeError, output: readiness.probeOutput))
                if end.cannotRun || result.spawnFailure != nil {
                    // Trying again cannot help: the service fails now, as one not ready in time
                    // does (its group terminated, its end waited for).
                    service.serviceFailure = .probeCannotRun(end)
                    stopProbing(service)
                    service.terminatedByRequest = true
                    terminate(service, immediately: false, now: now)
                    continue
                }
                readiness.lastProbe = end
                readiness.nextProbe = now + readiness.delay
                readiness.delay = min(readiness.delay * 2, Self.longestProbeDelay)
                service.readiness = readiness
            case .commandStarted, .ready, .signal, .suspendRequested:
                continue
            }
        }
        events = kept
    }

    /// The service whose probe this is, while it still runs and waits to be ready.
    private func probing(_ serviceID: Int) -> RunningJob? {
        guard let service = slots.first(where: { $0?.job.id == serviceID }) ?? nil,
            service.commandRunning, service.readiness != nil
        else { return nil }
        return service
    }

    private static func keepTail(of bytes: [UInt8], in tail: inout [UInt8]) {
        tail += bytes.suffix(probeTailBytes)
        if tail.count > probeTailBytes { tail.removeFirst(tail.count - probeTailBytes) }
    }

    /// The last line that is not blank, of standard error if it has one, else of standard output;
    /// cut to `probeLineCharacters` (its end kept, where the reason usually is).
    static func lastLine(error: [UInt8], output: [UInt8]) -> String {
        for bytes in [error, output] {
            let text = String(decoding: bytes, as: UTF8.self)
            let lines = text.split(whereSeparator: \.isNewline)
            guard let last = lines.last(where: { !$0.allSatisfy(\.isWhitespace) }) else { continue }
            let line = last.trimmingWhitespace()
            return line.count > probeLineCharacters ? "…" + line.suffix(probeLineCharacters - 1) : line
        }
        return ""
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

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        let start = firstIndex(where: { !$0.isWhitespace }) ?? endIndex
        let end = lastIndex(where: { !$0.isWhitespace }).map { index(after: $0) } ?? start
        return String(self[start..<end])
    }
}
