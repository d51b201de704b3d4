import CProcessShims
import Glibc
import OpsrunEngine

/// What is left of a command's process group once its shell has exited: watched, terminated, and
/// for a terminated job, waited for.
extension ProcessRunner {
    /// Starts watching `processGroup` if it still has running members; nil when it has none.
    func watchGroup(_ processGroup: pid_t) -> GroupWatch? {
        // The cheap check first: most commands leave nothing behind, and this spares them the scan.
        guard ProcessGroup.send(0, to: processGroup) else { return nil }
        let slot = freeWatchSlots.popLast() ?? watches.count
        let watch = GroupWatch(processGroup: processGroup, slot: slot)
        guard scanMembers(of: watch) else {
            freeWatchSlots.append(slot)
            return nil
        }
        if slot == watches.count { watches.append(watch) } else { watches[slot] = watch }
        return watch
    }

    /// Opens a pidfd for every running member; false when there is none.
    private func scanMembers(of watch: GroupWatch) -> Bool {
        watch.generation &+= 1
        watch.members = []
        for pid in ProcessGroup.runningMembers(of: watch.processGroup).prefix(Int(UInt16.max)) {
            let descriptor = cps_pidfd_open(pid)
            guard descriptor >= 0 else { continue }  // exited meanwhile
            poller.add(
                descriptor,
                .memberExit(
                    watch: watch.slot, generation: watch.generation,
                    index: UInt16(watch.members.count)))
            watch.members.append(descriptor)
        }
        return !watch.members.isEmpty
    }

    func memberExited(
        watch slot: Int, generation: UInt16, index: Int, events: inout [RunnerEvent]
    ) {
        guard slot < watches.count, let watch = watches[slot], watch.generation == generation,
            index < watch.members.count, watch.members[index] >= 0
        else { return }
        poller.removeAndClose(watch.members[index])
        watch.members[index] = -1
        // When all are gone, look again: a member may have forked after the scan.
        if !watch.hasRunningMembers && !scanMembers(of: watch) {
            endWatch(watch, events: &events)
        }
    }

    /// SIGTERM now and SIGKILL after the grace period, or SIGKILL now.
    func terminateGroup(of watch: GroupWatch, immediately: Bool, now: UInt64) {
        guard watch.killDeadline != nil || watch.giveUpDeadline == nil else { return }  // killed
        if immediately {
            watch.killDeadline = now
        } else {
            // Once, as a job's group (`ProcessRunner.terminate`).
            if !watch.gotTerm { ProcessGroup.send(SIGTERM, to: watch.processGroup) }
            watch.gotTerm = true
            watch.killDeadline = min(watch.killDeadline ?? .max, now + graceNanoseconds)
        }
        fireDeadlines(of: watch, now: now, events: &pendingEvents)
    }

    func fireDeadlines(of watch: GroupWatch, now: UInt64, events: inout [RunnerEvent]) {
        if let deadline = watch.killDeadline, now >= deadline {
            if watch.hasRunningMembers {
                ProcessGroup.send(SIGKILL, to: watch.processGroup)
            }
            watch.killDeadline = nil
            guard watch.owner != nil else {
                // Nothing waits for a leftover: its members die on their own now.
                endWatch(watch, events: &events)
                return
            }
            watch.giveUpDeadline = now + Self.giveUpAfterKill
        }
        if let deadline = watch.giveUpDeadline, now >= deadline {
            endWatch(watch, events: &events)
        }
    }

    /// Stops watching; the owner, if any, finishes now.
    func endWatch(_ watch: GroupWatch, events: inout [RunnerEvent]) {
        for descriptor in watch.members where descriptor >= 0 {
            poller.removeAndClose(descriptor)
        }
        watch.members = []
        descriptorsFreed = true
        watches[watch.slot] = nil
        freeWatchSlots.append(watch.slot)
        if let owner = watch.owner, let termination = watch.ownerTermination {
            watch.owner = nil
            owner.watch = nil
            finish(owner, termination: termination, events: &events)
        }
    }
}
