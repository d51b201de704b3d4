import CProcessShims
import Glibc
import OpsrunCore
import OpsrunEngine

/// A job's commands, one after the other: spawn, read, reap, and the end of the job.
extension ProcessRunner {
    /// Spawns `job.commands[job.commandIndex]`; on failure the job finishes with `spawnFailure`.
    /// `throughShell` again after the program itself could not be exec'd, without a second
    /// `.commandStarted`.
    func spawnCurrentCommand(of job: RunningJob, throughShell: Bool = false, events: inout [RunnerEvent]) {
        let handOver = job.job.interactive && TerminalControl.canHandOver()
        let command = job.currentCommand
        // Interactive commands keep the shell: they are rare, and run alone anyway. So do commands
        // given arguments after `--`: without a `$` a command cannot read them, so running it
        // directly would do the same, but the shell is the plain way and the rare case.
        // A `shell:` of the manifest's runs every command, even one it could do without.
        let directWords = job.job.interactive || throughShell || !job.job.arguments.isEmpty || job.job.shell != nil
            ? nil : DirectCommand.arguments(of: command)
        // The job's pipes, kept from one of its commands to the next (OutputPipes).
        if !job.job.interactive && job.pipes == nil {
            guard let pipes = outputPipes.acquire(for: job.slot, poller: poller) else {
                let code = errno
                if Self.isDescriptorShortage(code) && waitForDescriptors(job, throughShell: throughShell) { return }
                let reason = String(cString: strerror(code))
                finish(job, termination: .exited(127), spawnFailure: "cannot create a pipe: \(reason)", events: &events)
                return
            }
            job.pipes = pipes
        }
        let outcome = spawner.spawn(
            command, of: job.job, slot: job.slot, directWords: directWords, wantsPidFD: childExits == .pidfd,
            outputs: job.pipes.flatMap { outputPipes[$0] }.map { ($0.output.write, $0.error.write) },
            handOverTerminal: handOver)
        switch outcome {
        case .failed(let message, let code):
            if Self.isDescriptorShortage(code) && waitForDescriptors(job, throughShell: throughShell) { return }
            finish(job, termination: .exited(127), spawnFailure: message, events: &events)
        case .spawned(let pid, let pidFD, let directly):
            job.serial &+= 1
            job.pid = pid
            job.commandRunning = true
            job.groupGotTerm = false
            job.spawnedDirectly = directly
            job.ownsTerminal = handOver
            if handOver { TerminalControl.handOver(to: pid) }
            switch childExits {
            case .pidfd:
                job.pidFD = pidFD
                poller.add(pidFD, .leaderExit(slot: job.slot, serial: job.serial))
            case .signal:
                leaders[pid] = job.slot
            }
            if !throughShell {
                events.append(.commandStarted(jobID: job.job.id, commandIndex: job.reportedCommandIndex))
            }
        }
    }

    /// One read of one chunk (level-triggered epoll asks again while more is waiting), so a
    /// batch of events stays bounded however fast children write.
    func readChunk(of pipes: Int, _ stream: OutputStreamKind, events: inout [RunnerEvent]) {
        guard let pair = outputPipes[pipes] else { return }
        let count = read(pair.reading(stream), readBuffer.baseAddress, readBuffer.count)
        guard count > 0 else { return }  // EAGAIN: another event of the batch drained it
        if let slot = outputPipes.owner(of: pipes), let job = job(in: slot) {
            events.append(output(of: job, stream, count: count))
        } else {
            // Written while no job holds the pair: by a process that left its task's group with
            // the descriptor. Close the pair so it cannot write into a later task's output.
            outputPipes.retire(pipes, poller: poller)
        }
    }

    /// The command's shell was reaped, with `status` (nil: someone else reaped it): drain what it
    /// wrote, deal with what is left of its group, and go on to the next command or finish.
    func leaderExited(_ job: RunningJob, status: Int32?, events: inout [RunnerEvent]) {
        // An unknown status is reported as a failure.
        let termination = status.map(Termination.init(waitStatus:)) ?? .exited(255)
        // Read now: the slot's next spawn (the shell, below) overwrites it.
        let failureBeforeExec = status != nil ? spawner.failureBeforeExec(slot: job.slot) : 0
        job.commandRunning = false
        if job.pidFD >= 0 {
            poller.removeAndClose(job.pidFD)
            job.pidFD = -1
        }
        // Most commands leave nothing unread: one poll tells, rather than a read of each pipe.
        if let pipes = job.pipes, let pair = outputPipes[pipes] {
            let unread = OutputPipes.unread(pair)
            if unread.output { drain(pipes, of: job, .standardOutput, events: &events) }
            if unread.error { drain(pipes, of: job, .standardError, events: &events) }
        }
        if job.ownsTerminal {
            TerminalControl.takeTerminalBack()
            job.ownsTerminal = false
        }
        let now = MonotonicClock.now()
        // Checked just after the reap: a zombie leader would keep the group answering `kill`, and
        // the number cannot be reused by another group leader within these microseconds.
        let watch = watchGroup(job.pid)
        if watch != nil, let pipes = job.pipes {
            // What is left of the group may still hold the pipes: they go with it.
            outputPipes.retire(pipes, poller: poller)
            job.pipes = nil
        }
        if job.isTerminating, let watch {
            watch.owner = job
            watch.ownerTermination = termination
            watch.gotTerm = job.groupGotTerm
            job.watch = watch
            if job.killed {
                watch.giveUpDeadline = now + Self.giveUpAfterKill
            } else {
                watch.killDeadline = job.killDeadline
            }
            return
        }
        if let watch {
            // A leftover (`sleep 60 &`, a daemon that kept the group): SIGTERM now, SIGKILL after
            // the grace period, whether or not the job goes on.
            ProcessGroup.send(SIGTERM, to: watch.processGroup)
            watch.gotTerm = true
            watch.killDeadline = now + graceNanoseconds
        }
        if job.isTerminating {
            finish(job, termination: termination, events: &events)
            return
        }
        if failureBeforeExec != 0 {
            if job.spawnedDirectly {
                // The program went away since it was found, or is a script without `#!`: the
                // shell runs such a file itself, so it gets the command as it would have.
                spawnCurrentCommand(of: job, throughShell: true, events: &events)
            } else {
                let why = CommandSpawner.describeFailure(failureBeforeExec, workingDirectory: job.job.workingDirectory)
                finish(job, termination: termination, spawnFailure: why, events: &events)
            }
            return
        }
        if termination.succeeded && job.mainEnd == nil && job.commandIndex + 1 < job.job.commands.count {
            job.commandIndex += 1
            spawnCurrentCommand(of: job, events: &events)
        } else {
            finish(job, termination: termination, events: &events)
        }
    }

    /// Reads what is in the pipe now, up to `drainLimit`: everything the command wrote before it
    /// exited. Stops at EAGAIN; there is no end-of-file while opsrun holds the write end.
    private func drain(_ pipes: Int, of job: RunningJob, _ stream: OutputStreamKind, events: inout [RunnerEvent]) {
        guard let descriptor = outputPipes[pipes]?.reading(stream) else { return }
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
    }

    private func output(of job: RunningJob, _ stream: OutputStreamKind, count: Int)
        -> RunnerEvent
    {
        .output(jobID: job.job.id, stream, Array(UnsafeRawBufferPointer(rebasing: readBuffer[..<count])))
    }

    func finish(
        _ job: RunningJob, termination: Termination, spawnFailure: String? = nil,
        events: inout [RunnerEvent]
    ) {
        if !job.job.cleanupCommands.isEmpty, cleanupGoesOn(job, termination, spawnFailure, events: &events) { return }
        if job.readiness != nil || job.job.service != nil { stopProbing(job) }
        closeDescriptors(of: job)
        slots[job.slot] = nil
        freeSlots.append(job.slot)
        descriptorsFreed = true
        let end = job.mainEnd
            ?? RunningJob.MainEnd(
                termination: termination, commandIndex: job.commandIndex, spawnFailure: spawnFailure,
                timedOut: job.timedOut)
        var result = JobResult(
            termination: end.termination, commandIndex: end.commandIndex, timedOut: end.timedOut,
            terminatedByRequest: job.terminatedByRequest, spawnFailure: end.spawnFailure,
            startNanoseconds: job.startNanoseconds, endNanoseconds: MonotonicClock.now())
        if job.serviceFailure != nil { result.serviceFailure = job.serviceFailure }
        if job.cleanupFailure != nil { result.cleanupFailure = job.cleanupFailure }
        events.append(.finished(jobID: job.job.id, result))
    }

    /// A command of a job with `cleanup:` ended as `termination`: starts its first cleanup command
    /// (after the job's own), or the next; `false` when the job is done. None starts after a
    /// second interrupt killed the job at once. A job killed because it outlived the grace period
    /// after a stop or an interrupt (it ignored SIGTERM) still gets its cleanup, bounded by a
    /// grace period of its own: cleanups run even when a process had to be killed
    /// (docs/manual/ci.md).
    private func cleanupGoesOn(
        _ job: RunningJob, _ termination: Termination, _ spawnFailure: String?, events: inout [RunnerEvent]
    ) -> Bool {
        if job.mainEnd == nil {
            if job.killedAtOnce { return false }
            let killedAfterGrace = job.killed && job.terminatedByRequest
            if job.readiness != nil || job.job.service != nil { stopProbing(job) }
            job.enterCleanup(
                RunningJob.MainEnd(
                    termination: termination, commandIndex: job.commandIndex, spawnFailure: spawnFailure,
                    timedOut: job.timedOut))
            if killedAfterGrace {
                job.killed = false
                job.killDeadline = MonotonicClock.now() + graceNanoseconds
            }
        } else {
            let succeeded = termination.succeeded && spawnFailure == nil
            if !succeeded {
                job.cleanupFailure = CleanupFailure(
                    commandIndex: job.cleanupIndex, termination: termination, spawnFailure: spawnFailure)
                return false
            }
            guard job.cleanupIndex + 1 < job.job.cleanupCommands.count, !job.killed else { return false }
            job.cleanupIndex += 1
        }
        spawnCurrentCommand(of: job, events: &events)
        return true
    }

    /// Closes the job's pidfd and gives its pipes back: to the pool when its command has been
    /// reaped and drained, else (a command still running, at shutdown) closed.
    func closeDescriptors(of job: RunningJob) {
        if let pipes = job.pipes {
            if job.commandRunning { outputPipes.retire(pipes, poller: poller) } else { outputPipes.release(pipes) }
            job.pipes = nil
        }
        if job.pidFD >= 0 { poller.removeAndClose(job.pidFD) }
        job.pidFD = -1
        if job.commandRunning && childExits == .signal { leaders[job.pid] = nil }
    }
}
