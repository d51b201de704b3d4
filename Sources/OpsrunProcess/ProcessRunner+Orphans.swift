import Glibc
import OpsrunCore

/// Adopted orphans (`OrphanAdoption`): every child of opsrun that is not a running command's
/// leader. Terminated on an interrupt with the tasks, and at the end of the run: SIGTERM, the
/// grace period, then SIGKILL, as a task's process group.
extension ProcessRunner {
    /// Whether this runner deals with orphans: it reaps every child, and the process adopts them.
    var adoptsOrphans: Bool { host.adoptsOrphans }

    /// On an interrupt: `signal` to every orphan now.
    func signalOrphans(_ signal: Int32, now: UInt64) {
        guard adoptsOrphans else { return }
        for orphan in orphans() {
            Self.send(signal, to: orphan)
            signalledOrphans.insert(orphan.pid)
        }
        if signal == SIGKILL {
            orphanKillDeadline = now
        } else {
            orphanKillDeadline = min(orphanKillDeadline ?? .max, now + graceNanoseconds)
        }
    }

    /// Sends `signal` to every adopted orphan (a task's process that left its group with
    /// `setsid` and outlived its parent): SIGSTOP and SIGCONT, as a suspended run stops them too.
    /// Returns those it reached.
    func sendToOrphans(_ signal: Int32) -> [ProcessTable.Entry] {
        guard adoptsOrphans else { return [] }
        let found = orphans()
        for orphan in found { Self.send(signal, to: orphan) }
        return found
    }

    /// At shutdown, once every command's leader has been reaped: ends and reaps every orphan.
    /// Those that appear meanwhile (an orphan's children, adopted when it dies) get the same.
    /// Blocks up to the grace period, less what passed since an interrupt sent SIGTERM, plus a
    /// second after SIGKILL; a termination signal cuts the grace period short.
    func endOrphans() {
        guard adoptsOrphans, reapOrphans() else { return }  // the usual case: no child left
        var now = MonotonicClock.now()
        var deadline = orphanKillDeadline ?? now + graceNanoseconds
        var signal = SIGTERM
        // Those that had their SIGTERM on the interrupt do not get a second one.
        var signalled = signalledOrphans
        while reapOrphans() {
            now = MonotonicClock.now()
            if now >= deadline {
                if signal == SIGKILL { return }  // one stuck in uninterruptible sleep must not hang opsrun
                signal = SIGKILL
                signalled = []
                deadline = now + Self.giveUpAfterKill
            }
            for orphan in orphans() where signalled.insert(orphan.pid).inserted {
                Self.send(signal, to: orphan)
            }
            switch Self.waitForChildExit(until: deadline) {
            case SIGCHLD: break
            case SIGTSTP:
                // Ctrl-Z while waiting: suspended as a run is, the wait's time not counted.
                let stopped = sendToOrphans(SIGSTOP)
                let stoppedAt = MonotonicClock.now()
                SelfStop.stopThisProcess()
                deadline &+= MonotonicClock.now() - stoppedAt
                for orphan in stopped { Self.send(SIGCONT, to: orphan) }
            case 0: deadline = min(deadline, MonotonicClock.now())
            case let signal:
                // A termination signal cuts the grace period short, and the run ends interrupted.
                if signalDuringShutdown == nil { signalDuringShutdown = signal }
                deadline = min(deadline, MonotonicClock.now())
            }
        }
    }

    /// Reaps every orphan that has exited; false once opsrun has no child left at all.
    private func reapOrphans() -> Bool {
        while true {
            var status: Int32 = 0
            let pid = wait4(-1, &status, WNOHANG, nil)
            if pid > 0 || (pid < 0 && errno == EINTR) { continue }
            return pid == 0
        }
    }

    /// opsrun's children that are not running commands' leaders. The pids cannot be reused
    /// while they are listed: only opsrun may reap them.
    private func orphans() -> [ProcessTable.Entry] {
        let own = getpid()
        return ProcessTable.processes { $0.parent == own && !$0.isZombie && leaders[$0.pid] == nil }
    }

    /// To the orphan's whole group when it leads one (`set -m; cmd &` made it), else to it alone.
    static func send(_ signal: Int32, to orphan: ProcessTable.Entry) {
        kill(orphan.processGroup == orphan.pid ? -orphan.pid : orphan.pid, signal)
    }

    /// Waits for SIGCHLD (blocked, as `ChildExitNotice.signal` requires), a termination signal or
    /// SIGTSTP until `deadline`; returns the signal taken, or 0 when the time ran out.
    private static func waitForChildExit(until deadline: UInt64) -> Int32 {
        var signals = SignalHandling.runLoopSignals
        sigaddset(&signals, SIGCHLD)
        let now = MonotonicClock.now()
        let left = deadline > now ? deadline - now : 0
        var timeout = timespec(tv_sec: Int(left / 1_000_000_000), tv_nsec: Int(left % 1_000_000_000))
        let taken = sigtimedwait(&signals, nil, &timeout)
        return taken > 0 ? taken : (errno == EINTR ? SIGCHLD : 0)
    }
}
