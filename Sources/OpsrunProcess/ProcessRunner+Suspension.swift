import Glibc
import OpsrunCore
import OpsrunEngine

/// Ctrl-Z (docs/manual/running.md): the run is suspended as a whole, as a job of the shell's is.
///
/// Each task runs in a process group of its own, which the terminal's SIGTSTP does not reach (it
/// goes to the foreground group: opsrun's, or an interactive task's). So opsrun stops every group
/// it knows (tasks, their cleanups, services, readiness probes, what is left of a group whose shell
/// has exited, the orphans it adopted), then itself; once continued (`fg`, `bg`), it continues them all, and moves every
/// deadline on by the time it was stopped, so that a timeout, a `ready_timeout` or a grace period
/// counts only time the run was running.
extension ProcessRunner {
    public func suspend() {
        let groups = knownGroups()
        // SIGSTOP rather than SIGTSTP: a task cannot catch or ignore it, and it stops a group the
        // kernel counts as orphaned (what is left after its shell exited), where it would drop a
        // SIGTSTP.
        for group in groups { ProcessGroup.send(SIGSTOP, toGroupLedBy: group) }
        let orphans = sendToOrphans(SIGSTOP)
        let terminalHolder = slots.lazy.compactMap { $0 }.first { $0.ownsTerminal && $0.commandRunning }
        let stoppedAt = MonotonicClock.now()
        SelfStop.stopThisProcess()
        let stoppedFor = MonotonicClock.now() - stoppedAt
        if let terminalHolder, TerminalControl.canHandOver() {
            // Back in the foreground (`fg`): the interactive task gets the terminal again before
            // it goes on. After `bg` it does not; should it read the terminal, it stops at
            // SIGTTIN, and the run is suspended again (`interactiveTaskStopped`).
            TerminalControl.handOver(to: terminalHolder.pid)
        }
        for group in groups { ProcessGroup.send(SIGCONT, toGroupLedBy: group) }
        for orphan in orphans { Self.send(SIGCONT, to: orphan) }
        postponeDeadlines(by: stoppedFor)
    }

    /// Every process group a running job or a watched leftover stands for.
    private func knownGroups() -> [pid_t] {
        var groups: [pid_t] = []
        for case let job? in slots where job.commandRunning { groups.append(job.pid) }
        for case let watch? in watches where watch.hasRunningMembers { groups.append(watch.processGroup) }
        return groups
    }

    /// Moves every deadline on by `nanoseconds`, the time the run was stopped.
    private func postponeDeadlines(by nanoseconds: UInt64) {
        func later(_ deadline: UInt64?) -> UInt64? { deadline.map { $0 &+ nanoseconds } }
        for case let job? in slots {
            job.postponeTimeout(by: nanoseconds)
            job.killDeadline = later(job.killDeadline)
            if var readiness = job.readiness {
                readiness.deadline &+= nanoseconds
                readiness.nextProbe = later(readiness.nextProbe)
                job.readiness = readiness
            }
        }
        for case let watch? in watches {
            watch.killDeadline = later(watch.killDeadline)
            watch.giveUpDeadline = later(watch.giveUpDeadline)
        }
        orphanKillDeadline = later(orphanKillDeadline)
    }

    /// After a SIGCHLD: whether the interactive task holding the terminal was stopped (Ctrl-Z
    /// reaches it, not opsrun, as it is the terminal's foreground group; or SIGTTIN, reading the
    /// terminal after `bg`). Then the run is to be suspended, as the task's shell would have
    /// stopped with it had it run in opsrun's group; otherwise the terminal would stay with a
    /// stopped task, and the user's shell would wait for opsrun without end.
    func interactiveTaskStopped() -> Bool {
        for case let job? in slots where job.ownsTerminal && job.commandRunning {
            var info = siginfo_t()
            let found = waitid(P_PID, id_t(job.pid), &info, WSTOPPED | WNOHANG)
            if found == 0 && info.si_signo == SIGCHLD && info.si_code == CLD_STOPPED { return true }
        }
        return false
    }
}

/// Stopping opsrun itself, as SIGTSTP's default action would have.
enum SelfStop {
    /// Stops this process, and returns once it is continued (SIGCONT). The SIGTSTP that asked for
    /// it was taken from the signalfd; this raises one with the signal unblocked in this thread
    /// only, so the default action (stop) applies, and the stop is reported to the shell as a
    /// Ctrl-Z's is. A process group the kernel counts as orphaned (no shell with job control
    /// could continue it) is not stopped by SIGTSTP: then this returns at once, and the run goes on.
    static func stopThisProcess() {
        var stopSignal = sigset_t()
        sigemptyset(&stopSignal)
        sigaddset(&stopSignal, SIGTSTP)
        // A second Ctrl-Z already waiting is delivered by the unblocking itself: raising another
        // would stop opsrun twice, and take two `fg`.
        var pending = sigset_t()
        sigpending(&pending)
        let alreadyPending = sigismember(&pending, SIGTSTP) == 1
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &stopSignal, &previous)
        if !alreadyPending { raise(SIGTSTP) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }
}
