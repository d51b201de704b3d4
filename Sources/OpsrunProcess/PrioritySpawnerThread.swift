import CProcessShims
import Glibc
import OpsrunCore

/// A long-lived thread, at one lowered priority, that performs the spawns of one quality of service.
///
/// Linux keeps the nice value and the I/O priority per thread, and a new process takes them from
/// the thread that forks it. Setting them once on this thread and spawning from it gives every
/// process of such a task its priority from its first instruction, so nothing the task forks early
/// escapes it (renicing the group after the spawn would race with those forks). The run loop's own
/// thread stays at normal priority; it could not lower itself for a spawn and rise again, because
/// an unprivileged thread may raise its nice value but never lower it.
///
/// A spawn is handed over synchronously (a `Monitor`) and only for these tasks;
/// the default path spawns on the run loop's thread with no lock at all.
final class PrioritySpawnerThread: @unchecked Sendable {
    private let niceness: Int32
    private let idleInputOutput: Bool
    private let monitor = Monitor()
    // Guarded by `monitor`.
    private var work: (() -> Void)?
    private var workDone = false
    private var stopping = false
    private var thread: pthread_t = 0

    init(niceness: Int32, idleInputOutput: Bool) {
        self.niceness = niceness
        self.idleInputOutput = idleInputOutput
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<PrioritySpawnerThread>.fromOpaque(context!).takeRetainedValue().main()
            return nil
        }, context)
        precondition(status == 0, "pthread_create failed: \(status)")
    }

    /// Runs `body` on this thread and returns when it has run.
    func run(_ body: () -> Void) {
        withoutActuallyEscaping(body) { body in
            monitor.withLock {
                work = body
                workDone = false
                monitor.broadcast()
                while !workDone { monitor.wait() }
            }
        }
    }

    /// Ends the thread and waits for it.
    func stop() {
        monitor.withLock {
            stopping = true
            monitor.broadcast()
        }
        pthread_join(thread, nil)
    }

    private func main() {
        lowerOwnPriority()
        monitor.withLock {
            while true {
                if let body = work {
                    body()
                    work = nil
                    workDone = true
                    monitor.broadcast()
                } else if stopping {
                    return
                } else {
                    monitor.wait()
                }
            }
        }
    }

    private func lowerOwnPriority() {
        let thisThread = id_t(cps_gettid())
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        // Never below what opsrun already runs at: `nice -n 15 opsrun` keeps its utility tasks at 15.
        if niceness > getpriority(which, thisThread) {
            _ = setpriority(which, thisThread, niceness)
        }
        if idleInputOutput {
            _ = cps_ioprio_set_idle_for_this_thread()
        }
    }
}
