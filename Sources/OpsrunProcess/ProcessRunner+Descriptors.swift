import Glibc
import OpsrunCore
import OpsrunEngine

/// Jobs that wait for file descriptors: when a command cannot get its pipes or its pidfd (EMFILE,
/// ENFILE, even after `FileDescriptorLimit` raised the soft limit), it waits for a running job to
/// end, which frees some, and is retried then, in the order they came. It fails only when no other
/// job runs, since then nothing would free any. So `-j 100` under `ulimit -n 256` runs as many at
/// once as fit, rather than failing the rest.
extension ProcessRunner {
    static func isDescriptorShortage(_ code: Int32) -> Bool {
        code == EMFILE || code == ENFILE
    }

    /// Puts `job` in the queue when another job runs, whose end will free descriptors; false when
    /// none does, and the job must fail.
    func waitForDescriptors(_ job: RunningJob, throughShell: Bool) -> Bool {
        let othersRun = slots.contains { other in
            guard let other else { return false }
            return other !== job && !other.waitingForDescriptors
        }
        guard othersRun else { return false }
        job.waitingForDescriptors = true
        job.retryThroughShell = throughShell
        jobsWaitingForDescriptors.append(job)
        return true
    }

    /// After a job ended: spawns the waiting jobs' commands, in order, until one has to wait again.
    func retryIfDescriptorsFreed(events: inout [RunnerEvent]) {
        guard descriptorsFreed else { return }
        descriptorsFreed = false
        let waiting = jobsWaitingForDescriptors
        jobsWaitingForDescriptors = []
        for (index, job) in waiting.enumerated() {
            job.waitingForDescriptors = false
            if job.commandIndex == 0 && job.serial == 0 { job.restartClock(now: MonotonicClock.now()) }
            spawnCurrentCommand(of: job, throughShell: job.retryThroughShell, events: &events)
            if job.waitingForDescriptors {
                // Still short: the rest keep their place behind it.
                jobsWaitingForDescriptors += waiting[(index + 1)...]
                return
            }
        }
    }

    /// On `terminateAll`: the waiting jobs end as if the signal had reached their command before
    /// it ran, which is what happens to one spawned just before.
    func finishJobsWaitingForDescriptors(signal: Int32) {
        let waiting = jobsWaitingForDescriptors
        jobsWaitingForDescriptors = []
        for job in waiting {
            job.waitingForDescriptors = false
            job.terminatedByRequest = true
            finish(job, termination: .signaled(signal), events: &pendingEvents)
        }
    }
}
