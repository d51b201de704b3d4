import CProcessShims
import Glibc

/// The real `CommandRunner`: the only code in opsrun that spawns processes.
///
/// Driven from one thread, the engine's run loop: `start` spawns and returns, `waitForEvents`
/// blocks in epoll over every child's pipes and pidfd and a signalfd, with a timeout equal to the
/// nearest deadline (a job's timeout, a SIGKILL due after the grace period). No locks on this path.
///
/// Each command is `/bin/sh -c <command>`, leader of its own process group, stdin `/dev/null`,
/// stdout and stderr to pipes. When a command's shell exits, what it wrote is drained, and whatever
/// is left of its group (a `sleep 60 &`, a grandchild holding the pipe) gets SIGTERM, then SIGKILL
/// after the grace period: nothing a task started outlives opsrun.
public final class ProcessRunner: CommandRunner {
    let graceNanoseconds: UInt64
    let poller = EventPoller()
    let spawner = CommandSpawner()
    /// Running jobs by slot (the slot is in every poll token); nil slots are free.
    var slots: [RunningJob?] = []
    var freeSlots: [Int] = []
    /// Groups of commands that ended while members were still running, and when to SIGKILL them.
    var leftoverGroups: [(processGroup: pid_t, killDeadline: UInt64)] = []
    /// Events that happened outside `waitForEvents` (in `start`), handed out by the next call.
    var pendingEvents: [RunnerEvent] = []
    /// One buffer for every read; each chunk is copied out into its `.output` event.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: ProcessRunner.chunkSize, alignment: 16)
    private var isShutDown = false

    static let chunkSize = 64 * 1024
    /// What is drained from a pipe after its command exits: enough for everything written before
    /// the exit (a pipe holds at most 1 MiB unprivileged) without chasing a grandchild that keeps
    /// writing.
    static let drainLimit = 1024 * 1024

    public init(graceMilliseconds: Int = 5000) {
        graceNanoseconds = UInt64(max(0, graceMilliseconds)) * 1_000_000
    }

    deinit {
        shutdown()
        readBuffer.deallocate()
    }

    public func start(_ job: CommandJob) {
        precondition(!isShutDown, "ProcessRunner used after shutdown()")
        let slot = freeSlots.popLast() ?? slots.count
        let running = RunningJob(job: job, slot: slot, now: MonotonicClock.now())
        if slot == slots.count { slots.append(running) } else { slots[slot] = running }
        if job.commands.isEmpty {
            finish(running, termination: .exited(0), events: &pendingEvents)
        } else {
            spawnCurrentCommand(of: running, events: &pendingEvents)
        }
    }

    public func waitForEvents() -> [RunnerEvent] {
        var events = pendingEvents
        pendingEvents = []
        repeat {
            // With events in hand, only collect what is already ready; never block.
            let timeout = events.isEmpty ? millisecondsUntilNextDeadline() : 0
            for token in poller.wait(timeoutMilliseconds: timeout) {
                handle(token, events: &events)
            }
            fireDeadlines(now: MonotonicClock.now(), events: &events)
        } while events.isEmpty
        return events
    }

    public func terminateAll(immediately: Bool) {
        let now = MonotonicClock.now()
        for case let job? in slots {
            job.terminatedByRequest = true
            terminate(job, immediately: immediately, now: now)
        }
        if immediately {
            for leftover in leftoverGroups {
                ProcessGroup.send(SIGKILL, to: leftover.processGroup)
            }
            leftoverGroups = []
        }
    }

    /// SIGKILLs every process group still known, running or left over, reaps what it spawned,
    /// and releases every descriptor and thread; for when opsrun exits. Idempotent; `deinit`
    /// calls it too.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        for case let job? in slots {
            ProcessGroup.send(SIGKILL, to: job.pid)
            if job.pidFD >= 0 {
                var status: Int32 = 0
                while waitpid(job.pid, &status, 0) < 0 && errno == EINTR {}
            }
            if job.ownsTerminal {
                TerminalControl.takeTerminalBack()
            }
            closeDescriptors(of: job)
            job.environment.free()
        }
        slots = []
        freeSlots = []
        for leftover in leftoverGroups {
            ProcessGroup.send(SIGKILL, to: leftover.processGroup)
        }
        leftoverGroups = []
        spawner.stopThreads()
    }

    private func handle(_ token: PollToken, events: inout [RunnerEvent]) {
        switch token {
        case .signal:
            events.append(contentsOf: poller.takeSignals().map(RunnerEvent.signal))
        case .output(let slot, let serial, let stream):
            guard let job = job(in: slot), job.serial == serial else { return }
            readChunk(of: job, stream, events: &events)
        case .leaderExit(let slot, let serial):
            guard let job = job(in: slot), job.serial == serial, job.pidFD >= 0 else { return }
            leaderExited(job, events: &events)
        case .memberExit(let slot, let generation, let index):
            guard let job = job(in: slot), job.membersGeneration == generation else { return }
            memberExited(job, index: Int(index), events: &events)
        }
    }

    private func job(in slot: Int) -> RunningJob? {
        slot < slots.count ? slots[slot] : nil
    }

    /// SIGTERM now and SIGKILL after the grace period, or SIGKILL now.
    func terminate(_ job: RunningJob, immediately: Bool, now: UInt64) {
        if immediately {
            if !job.killed { killGroup(of: job, now: now) }
        } else if !job.killed {
            ProcessGroup.send(SIGTERM, to: job.pid)
            job.killDeadline = min(job.killDeadline ?? .max, now + graceNanoseconds)
        }
    }

    private func killGroup(of job: RunningJob, now: UInt64) {
        // Sent even when the leader has exited: members that ignored SIGTERM are still in it.
        ProcessGroup.send(SIGKILL, to: job.pid)
        job.killed = true
        if case .awaitingGroup = job.phase, job.giveUpDeadline == nil {
            job.giveUpDeadline = now + Self.giveUpAfterKill
        }
    }

    static let giveUpAfterKill: UInt64 = 1_000_000_000

    private func fireDeadlines(now: UInt64, events: inout [RunnerEvent]) {
        for case let job? in slots {
            if case .running = job.phase, !job.isTerminating, let deadline = job.timeoutDeadline,
                now >= deadline
            {
                job.timedOut = true
                terminate(job, immediately: false, now: now)
            }
            if !job.killed, let deadline = job.killDeadline, now >= deadline {
                killGroup(of: job, now: now)
            }
            if case .awaitingGroup(let termination) = job.phase,
                let deadline = job.giveUpDeadline, now >= deadline
            {
                finish(job, termination: termination, events: &events)
            }
        }
        if leftoverGroups.contains(where: { $0.killDeadline <= now }) {
            for leftover in leftoverGroups where leftover.killDeadline <= now {
                ProcessGroup.send(SIGKILL, to: leftover.processGroup)
            }
            leftoverGroups.removeAll { $0.killDeadline <= now }
        }
    }

    private func millisecondsUntilNextDeadline() -> Int32 {
        var next = UInt64.max
        for case let job? in slots {
            next = min(next, job.nextDeadline ?? .max)
        }
        for leftover in leftoverGroups {
            next = min(next, leftover.killDeadline)
        }
        guard next != .max else { return -1 }
        let now = MonotonicClock.now()
        guard next > now else { return 0 }
        // Rounded up: waking a little early would only find nothing due and wait again.
        return Int32(clamping: (next - now + 999_999) / 1_000_000)
    }
}
