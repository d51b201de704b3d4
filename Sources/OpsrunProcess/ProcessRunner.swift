import CProcessShims
import Glibc
import OpsrunCore
import OpsrunEngine

/// The real `CommandRunner`: the only code in opsrun that spawns processes.
///
/// Driven from one thread, the engine's run loop: `start` spawns and returns, `waitForEvents`
/// blocks in epoll over every child's pipes and a signalfd (and each child's pidfd, unless exits
/// come as SIGCHLD: `ChildExitNotice`), with a timeout equal to the nearest deadline (a job's
/// timeout, a SIGKILL due after the grace period). No locks on this path.
///
/// Each command is `/bin/sh -c <command>` (or the program itself, `DirectCommand`), leader of its
/// own process group, stdin `/dev/null`, stdout and stderr to pipes (a pair kept from command to
/// command, `OutputPipes`). When a command's shell exits, what it wrote is drained, and whatever
/// is left of its group (a `sleep 60 &`, a grandchild holding the pipe) gets SIGTERM, then SIGKILL
/// after the grace period: nothing a task started outlives opsrun.
public final class ProcessRunner: CommandRunner {
    /// How the runner learns that a command's process exited.
    public enum ChildExitNotice: Sendable {
        /// A pidfd per command in the epoll set. Works in any process: the default.
        case pidfd
        /// SIGCHLD through the signalfd, then `wait4(-1)` until nothing more has exited: no
        /// descriptor per command, and no `epoll_ctl` (a pidfd per command took 1.08× as long on
        /// 2,000 /bin/true at -j 2), and the only way to reap adopted orphans. Only for a process that blocked
        /// SIGCHLD first thing (`ProcessHost.takeOverThisProcess()`), whose other children are all
        /// this runner's (it reaps any child).
        case signal
    }

    let graceNanoseconds: UInt64
    let host: ProcessHost
    var childExits: ChildExitNotice { host.childExits }
    let poller: EventPoller
    let spawner = CommandSpawner()
    let outputPipes = OutputPipes()
    /// Running jobs by slot (the slot is in every poll token); nil slots are free.
    var slots: [RunningJob?] = []
    /// The slot of each running command's leader, by pid (with `ChildExitNotice.signal`).
    var leaders: [pid_t: Int] = [:]
    var freeSlots: [Int] = []
    /// Groups whose shell has exited while members still run, by slot (in their poll tokens).
    var watches: [GroupWatch?] = []
    var freeWatchSlots: [Int] = []
    /// When adopted orphans get SIGKILL, once an interrupt sent them SIGTERM; and which did
    /// (`ProcessRunner+Orphans`).
    var orphanKillDeadline: UInt64?
    var signalledOrphans = Set<pid_t>()
    /// Jobs whose command waits for file descriptors, in order (`ProcessRunner+Descriptors`), and
    /// whether a job or group has ended since they were last tried.
    var jobsWaitingForDescriptors: [RunningJob] = []
    var descriptorsFreed = false
    /// Events that happened outside `waitForEvents` (in `start`), handed out by the next call.
    var pendingEvents: [RunnerEvent] = []
    /// One buffer for every read; each chunk is copied out into its `.output` event.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: ProcessRunner.chunkSize, alignment: 16)
    public private(set) var isShutDown = false
    /// A termination signal taken while `shutdown` waited for adopted orphans to end, once every
    /// task had: the run still ends interrupted (docs/manual/running.md: never exit 0 then).
    public internal(set) var signalDuringShutdown: Int32?
    /// `--watch`: services a run no longer needs are kept running for the next run
    /// (`ProcessRunner+KeptServices`); otherwise they are stopped.
    public var keepsServices = false
    /// Services kept between runs, still running (or stopping); their ids are `keptID`s.
    var keptJobs: [RunningJob] = []
    var keptCount = 0
    /// Readiness probes running (`ProcessRunner+Readiness`): their events are the runner's own.
    var probesRunning = 0

    static let chunkSize = 64 * 1024
    /// What is drained from a pipe after its command exits: enough for everything written before
    /// the exit (a pipe holds at most 1 MiB unprivileged) without chasing a grandchild that keeps
    /// writing.
    static let drainLimit = 1024 * 1024

    /// `host`: what the process set up for itself (`ProcessHost`).
    public init(graceMilliseconds: Int = 5000, host: ProcessHost = .embedded) {
        graceNanoseconds = UInt64(max(0, graceMilliseconds)) * 1_000_000
        self.host = host
        poller = EventPoller(childExitSignal: host.childExits == .signal)
    }

    deinit {
        shutdown()
        readBuffer.deallocate()
    }

    public func start(_ job: consuming CommandJob) {
        precondition(!isShutDown, "ProcessRunner used after shutdown()")
        if !keptJobs.isEmpty, job.service != nil, resume(job) { return }
        let slot = freeSlots.popLast() ?? slots.count
        let hasCommands = !job.commands.isEmpty
        // Before every attempt, as ninja does before each command: a retry after a command that
        // removed its own output directory finds it again.
        let written = job.depfile.map { job.outputs + [$0] } ?? job.outputs
        let directoryFailure = hasCommands && !written.isEmpty
            ? Self.makeOutputDirectories(
                Directories.parents(ofOutputs: written, in: job.workingDirectory), for: job.workingDirectory)
            : nil
        // Consumed: the job moves into its record without a copy of its strings and arrays.
        let running = RunningJob(job: job, slot: slot, now: MonotonicClock.now())
        if slot == slots.count { slots.append(running) } else { slots[slot] = running }
        if !hasCommands {
            finish(running, termination: .exited(0), events: &pendingEvents)
        } else if let directoryFailure {
            finish(running, termination: .exited(127), spawnFailure: directoryFailure, events: &pendingEvents)
        } else {
            spawnCurrentCommand(of: running, events: &pendingEvents)
            if running.job.service != nil { startReadiness(of: running) }
        }
    }

    /// Makes each of `directories`; the reason the first that cannot be made fails the job, its
    /// path shown relative to the job's `workingDirectory` when it lies beneath it.
    static func makeOutputDirectories(_ directories: [String], for workingDirectory: String) -> String? {
        for directory in directories {
            guard let failure = Directories.make(directory) else { continue }
            func shown(_ path: String) -> String {
                path.hasPrefix(workingDirectory + "/") ? String(path.dropFirst(workingDirectory.count + 1)) : path
            }
            let made = failure.path == directory ? "" : " (for '\(shown(directory))')"
            return "cannot create output directory '\(shown(failure.path))'\(made): \(failure.reason)"
        }
        return nil
    }

    public func waitForEvents() -> [RunnerEvent] {
        guard !keptJobs.isEmpty else { return collectEvents() }
        var events: [RunnerEvent] = []
        repeat {
            events = collectEvents()
            takeKeptEvents(&events)
        } while events.isEmpty
        return events
    }

    /// Waits until at least one thing happened, and returns what happened, in order (events of
    /// kept services included).
    func collectEvents() -> [RunnerEvent] {
        var events = pendingEvents
        pendingEvents = []
        retryIfDescriptorsFreed(events: &events)
        if probesRunning > 0 { takeProbeEvents(&events) }
        // Those of `start` (a command started, a spawn that failed) go out at once: polling too
        // cost a system call per command and rarely found anything yet.
        if !events.isEmpty { return events }
        repeat {
            let asked = millisecondsUntilNextDeadline()
            let asleep = MonotonicClock.now()
            poller.wait(timeoutMilliseconds: asked) { token in
                handle(token, events: &events)
            }
            if asked >= 0 { forgiveReadinessForTimeNotRunning(since: asleep, asked: asked) }
            // What is queued is read before any deadline fires: a wait cut short by a stop and a
            // continue (SIGSTOP from elsewhere: EINTR) or one that timed out may have exits behind
            // it, and a task or probe that ended in time must not be timed out.
            if events.isEmpty {
                poller.wait(timeoutMilliseconds: 0) { token in handle(token, events: &events) }
            }
            if probesRunning > 0 { takeProbeEvents(&events) }
            fireDeadlines(now: MonotonicClock.now(), events: &events)
            retryIfDescriptorsFreed(events: &events)
            if probesRunning > 0 {
                // A probe started by a deadline queued its own events; they are the runner's, and
                // when they were all there was, it waits on.
                events += pendingEvents
                pendingEvents = []
                takeProbeEvents(&events)
            }
        } while events.isEmpty
        return events
    }

    public func terminateAll(immediately: Bool) {
        let now = MonotonicClock.now()
        finishJobsWaitingForDescriptors(signal: immediately ? SIGKILL : SIGTERM)
        for case let job? in slots {
            job.terminatedByRequest = true
            if job.commandRunning {
                terminate(job, immediately: immediately, now: now)
            }
        }
        // Groups of jobs that were already terminating, and with `immediately` leftovers too
        // (which had their SIGTERM when their command ended).
        for case let watch? in watches where immediately || watch.owner != nil {
            terminateGroup(of: watch, immediately: immediately, now: now)
        }
        signalOrphans(immediately ? SIGKILL : SIGTERM, now: now)
    }

    public func terminate(jobID: Int) {
        guard let job = slots.first(where: { $0?.job.id == jobID }) ?? nil else { return }
        job.terminatedByRequest = true
        if job.commandRunning { terminate(job, immediately: false, now: MonotonicClock.now()) }
    }

    /// SIGKILLs every process group still known, running or left over, reaps what it spawned,
    /// ends adopted orphans (which may take the grace period), and releases every descriptor and
    /// thread; for when opsrun exits. Idempotent; `deinit` calls it too.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        for case let job? in slots where job.commandRunning {
            ProcessGroup.send(SIGKILL, toGroupLedBy: job.pid)
            var status: Int32 = 0
            while waitpid(job.pid, &status, 0) < 0 && errno == EINTR {}
        }
        for case let watch? in watches {
            if watch.hasRunningMembers {
                ProcessGroup.send(SIGKILL, to: watch.processGroup)
            }
            for descriptor in watch.members where descriptor >= 0 {
                poller.removeAndClose(descriptor)
            }
            watch.owner = nil
        }
        watches = []
        freeWatchSlots = []
        for case let job? in slots {
            if job.ownsTerminal {
                TerminalControl.takeTerminalBack()
            }
            closeDescriptors(of: job)
        }
        slots = []
        freeSlots = []
        // After the terminal is back: this may wait for the grace period.
        endOrphans()
        outputPipes.retireAll(poller: poller)
        spawner.stopThreads()
    }

    func handle(_ token: PollToken, events: inout [RunnerEvent]) {
        switch token {
        case .signal:
            poller.takeSignals { signal in
                if signal == SIGCHLD {
                    reapExitedCommands(events: &events)
                    if interactiveTaskStopped() { events.append(.suspendRequested) }
                } else if signal == SIGTSTP {
                    events.append(.suspendRequested)
                } else {
                    events.append(.signal(signal))
                }
            }
        case .output(let pipes, let stream):
            readChunk(of: pipes, stream, events: &events)
        case .leaderExit(let slot, let serial):
            guard let job = job(in: slot), job.serial == serial, job.commandRunning else { return }
            var status: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(job.pid, &status, WNOHANG) } while reaped < 0 && errno == EINTR
            if reaped == 0 { return }  // not waitable yet; the pidfd stays readable and says so again
            // ECHILD (someone else reaped it) leaves the status unknown: report it as a failure.
            leaderExited(job, status: reaped > 0 ? status : nil, events: &events)
        case .memberExit(let watch, let generation, let index):
            memberExited(watch: watch, generation: generation, index: Int(index), events: &events)
        }
    }

    /// After a SIGCHLD: reaps every child that has exited (one SIGCHLD may stand for several).
    private func reapExitedCommands(events: inout [RunnerEvent]) {
        while true {
            var status: Int32 = 0
            let pid = wait4(-1, &status, WNOHANG, nil)
            if pid < 0 && errno == EINTR { continue }
            guard pid > 0 else { return }  // none left that has exited (0), or no child (ECHILD)
            guard let slot = leaders.removeValue(forKey: pid), let job = job(in: slot),
                job.commandRunning, job.pid == pid
            else { continue }
            leaderExited(job, status: status, events: &events)
        }
    }

    func job(in slot: Int) -> RunningJob? {
        slot < slots.count ? slots[slot] : nil
    }

    /// SIGTERM now and SIGKILL after the grace period, or SIGKILL now, to a running command.
    func terminate(_ job: RunningJob, immediately: Bool, now: UInt64) {
        guard !job.killed else { return }
        if job.mainEnd != nil && !immediately {
            // A cleanup command is not stopped early: it has the grace period to finish.
            job.killDeadline = min(job.killDeadline ?? .max, now + graceNanoseconds)
        } else if immediately {
            job.killedAtOnce = true
            killGroup(of: job)
        } else if !job.groupGotTerm {
            // Once: a server may take a second TERM (an interrupt after its stop began) as "quit
            // now" and skip its graceful shutdown (docs/manual/running.md).
            ProcessGroup.send(SIGTERM, toGroupLedBy: job.pid)
            job.groupGotTerm = true
            job.killDeadline = min(job.killDeadline ?? .max, now + graceNanoseconds)
        }
    }

    func killGroup(of job: RunningJob) {
        // The whole group: members that ignore SIGTERM must not outlive their shell.
        ProcessGroup.send(SIGKILL, toGroupLedBy: job.pid)
        job.killed = true
    }

    static let giveUpAfterKill: UInt64 = 1_000_000_000

    func fireDeadlines(now: UInt64, events: inout [RunnerEvent]) {
        for case let job? in slots where job.commandRunning {
            if !job.isTerminating, let deadline = job.timeoutDeadline, now >= deadline {
                job.timedOut = true
                terminate(job, immediately: false, now: now)
            }
            if !job.killed, let deadline = job.killDeadline, now >= deadline {
                killGroup(of: job)
            }
            if job.readiness != nil { fireReadiness(of: job, now: now) }
        }
        for case let watch? in watches {
            fireDeadlines(of: watch, now: now, events: &events)
        }
    }

    private func millisecondsUntilNextDeadline() -> Int32 {
        var next = UInt64.max
        for case let job? in slots {
            next = min(next, job.nextDeadline ?? .max)
        }
        for case let watch? in watches {
            next = min(next, watch.nextDeadline ?? .max)
        }
        guard next != .max else { return -1 }
        let now = MonotonicClock.now()
        guard next > now else { return 0 }
        // Rounded up: waking a little early would only find nothing due and wait again.
        return Int32(clamping: (next - now + 999_999) / 1_000_000)
    }
}
