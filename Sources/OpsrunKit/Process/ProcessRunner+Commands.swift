import CProcessShims
import Glibc

/// A job's commands, one after the other: spawn, read, reap, and the end of the job.
extension ProcessRunner {
    /// Spawns `job.commands[job.commandIndex]`; on failure the job finishes with `spawnFailure`.
    func spawnCurrentCommand(of job: RunningJob, events: inout [RunnerEvent]) {
        let handOver = job.job.interactive && TerminalControl.canHandOver()
        let outcome = spawner.spawn(
            job.job.commands[job.commandIndex], of: job.job, environment: job.environment,
            handOverTerminal: handOver)
        switch outcome {
        case .failed(let message):
            finish(job, termination: .exited(127), spawnFailure: message, events: &events)
        case .spawned(let command):
            job.serial &+= 1
            job.pid = command.pid
            job.ownsTerminal = handOver
            job.standardOutput = command.standardOutput
            job.standardError = command.standardError
            let pidFD = cps_pidfd_open(command.pid)
            guard pidFD >= 0 else {
                // Without a pidfd there is no way to learn of its exit here; undo the spawn.
                let reason = String(cString: strerror(errno))
                ProcessGroup.send(SIGKILL, to: command.pid)
                var status: Int32 = 0
                while waitpid(command.pid, &status, 0) < 0 && errno == EINTR {}
                finish(
                    job, termination: .exited(127),
                    spawnFailure: "cannot watch the process (pidfd_open needs Linux 5.3): \(reason)",
                    events: &events)
                return
            }
            job.pidFD = pidFD
            poller.add(pidFD, .leaderExit(slot: job.slot, serial: job.serial))
            if command.standardOutput >= 0 {
                poller.add(
                    command.standardOutput,
                    .output(slot: job.slot, serial: job.serial, .standardOutput))
                poller.add(
                    command.standardError,
                    .output(slot: job.slot, serial: job.serial, .standardError))
            }
            events.append(.commandStarted(jobID: job.job.id, commandIndex: job.commandIndex))
        }
    }

    /// One read of one chunk (level-triggered epoll asks again while more is waiting), so a
    /// batch of events stays bounded however fast children write.
    func readChunk(of job: RunningJob, _ stream: OutputStreamKind, events: inout [RunnerEvent]) {
        let descriptor = stream == .standardOutput ? job.standardOutput : job.standardError
        guard descriptor >= 0 else { return }
        let count = read(descriptor, readBuffer.baseAddress, readBuffer.count)
        if count > 0 {
            events.append(output(of: job, stream, count: count))
        } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
            closeOutput(of: job, stream)
        }
    }

    /// The command's shell ended: reap it, drain what it wrote, deal with what is left of its
    /// group, and go on to the next command or finish.
    func leaderExited(_ job: RunningJob, events: inout [RunnerEvent]) {
        var status: Int32 = 0
        var reaped: pid_t
        repeat { reaped = waitpid(job.pid, &status, WNOHANG) } while reaped < 0 && errno == EINTR
        if reaped == 0 { return }  // not yet: the pidfd was a leftover from an earlier batch
        // ECHILD (someone else reaped it) leaves the status unknown: report it as a failure.
        let termination = reaped > 0 ? Termination(waitStatus: status) : .exited(255)
        poller.removeAndClose(job.pidFD)
        job.pidFD = -1
        drain(job, .standardOutput, events: &events)
        drain(job, .standardError, events: &events)
        if job.ownsTerminal {
            TerminalControl.takeTerminalBack()
            job.ownsTerminal = false
        }
        let now = MonotonicClock.now()
        if job.isTerminating {
            // Hold `.finished` until the group is gone, so that the engine, told the job ended,
            // may exit without cutting the grace period short for members that trap SIGTERM.
            awaitGroup(of: job, termination: termination, now: now, events: &events)
            return
        }
        if ProcessGroup.send(SIGTERM, to: job.pid) {
            leftoverGroups.append((job.pid, now + graceNanoseconds))
        }
        if termination.succeeded && job.commandIndex + 1 < job.job.commands.count {
            job.commandIndex += 1
            spawnCurrentCommand(of: job, events: &events)
        } else {
            finish(job, termination: termination, events: &events)
        }
    }

    /// Watches the running members of a terminated command's group through pidfds; finishes the
    /// job when there are none.
    func awaitGroup(
        of job: RunningJob, termination: Termination, now: UInt64, events: inout [RunnerEvent]
    ) {
        var members: [Int32] = []
        if ProcessGroup.send(0, to: job.pid) {
            job.membersGeneration &+= 1
            for pid in ProcessGroup.runningMembers(of: job.pid).prefix(Int(UInt16.max)) {
                let descriptor = cps_pidfd_open(pid)
                guard descriptor >= 0 else { continue }  // gone meanwhile
                poller.add(
                    descriptor,
                    .memberExit(
                        slot: job.slot, generation: job.membersGeneration,
                        index: UInt16(members.count)))
                members.append(descriptor)
            }
        }
        guard !members.isEmpty else {
            finish(job, termination: termination, events: &events)
            return
        }
        job.members = members
        job.phase = .awaitingGroup(termination)
        if job.killed && job.giveUpDeadline == nil {
            job.giveUpDeadline = now + Self.giveUpAfterKill
        }
    }

    func memberExited(_ job: RunningJob, index: Int, events: inout [RunnerEvent]) {
        guard case .awaitingGroup(let termination) = job.phase, index < job.members.count,
            job.members[index] >= 0
        else { return }
        poller.removeAndClose(job.members[index])
        job.members[index] = -1
        if job.members.allSatisfy({ $0 < 0 }) {
            job.members = []
            // Look again: a member may have forked after the scan.
            awaitGroup(of: job, termination: termination, now: MonotonicClock.now(), events: &events)
        }
    }

    /// Reads what is in the pipe now, up to `drainLimit`, then closes it. Stops at EAGAIN rather
    /// than waiting for EOF: a grandchild may hold the pipe open for as long as it lives.
    private func drain(_ job: RunningJob, _ stream: OutputStreamKind, events: inout [RunnerEvent]) {
        let descriptor = stream == .standardOutput ? job.standardOutput : job.standardError
        guard descriptor >= 0 else { return }
        var total = 0
        while total < Self.drainLimit {
            let count = read(descriptor, readBuffer.baseAddress, readBuffer.count)
            if count > 0 {
                events.append(output(of: job, stream, count: count))
                total += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        closeOutput(of: job, stream)
    }

    private func output(of job: RunningJob, _ stream: OutputStreamKind, count: Int)
        -> RunnerEvent
    {
        .output(jobID: job.job.id, stream, Array(UnsafeRawBufferPointer(rebasing: readBuffer[..<count])))
    }

    private func closeOutput(of job: RunningJob, _ stream: OutputStreamKind) {
        if stream == .standardOutput {
            poller.removeAndClose(job.standardOutput)
            job.standardOutput = -1
        } else {
            poller.removeAndClose(job.standardError)
            job.standardError = -1
        }
    }

    func finish(
        _ job: RunningJob, termination: Termination, spawnFailure: String? = nil,
        events: inout [RunnerEvent]
    ) {
        closeDescriptors(of: job)
        job.environment.free()
        slots[job.slot] = nil
        freeSlots.append(job.slot)
        let result = JobResult(
            termination: termination, commandIndex: job.commandIndex, timedOut: job.timedOut,
            terminatedByRequest: job.terminatedByRequest, spawnFailure: spawnFailure,
            startNanoseconds: job.startNanoseconds, endNanoseconds: MonotonicClock.now())
        events.append(.finished(jobID: job.job.id, result))
    }

    func closeDescriptors(of job: RunningJob) {
        for descriptor in [job.pidFD, job.standardOutput, job.standardError] + job.members
        where descriptor >= 0 {
            poller.removeAndClose(descriptor)
        }
        job.pidFD = -1
        job.standardOutput = -1
        job.standardError = -1
        job.members = []
    }
}
