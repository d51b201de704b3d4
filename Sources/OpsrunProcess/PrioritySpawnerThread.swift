import CProcessShims
import Glibc

/// A long-lived thread, at one lowered priority, that performs the spawns of one quality of service.
///
/// Linux keeps the nice value and the I/O priority per thread, and a new process takes them from
/// the thread that forks it. Setting them once on this thread and spawning from it gives every
/// process of such a task its priority from its first instruction, so nothing the task forks early
/// escapes it (renicing the group after the spawn would race with those forks). The run loop's own
/// thread stays at normal priority; it could not lower itself for a spawn and rise again, because
/// an unprivileged thread may raise its nice value but never lower it.
///
/// A spawn is handed over synchronously (mutex and condition variable) and only for these tasks;
/// the default path spawns on the run loop's thread with no lock at all.
final class PrioritySpawnerThread: @unchecked Sendable {
    private let niceness: Int32
    private let idleInputOutput: Bool
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    // Guarded by `mutex`.
    private var work: (() -> Void)?
    private var workDone = false
    private var stopping = false
    private var thread: pthread_t = 0

    init(niceness: Int32, idleInputOutput: Bool) {
        self.niceness = niceness
        self.idleInputOutput = idleInputOutput
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<PrioritySpawnerThread>.fromOpaque(context!).takeRetainedValue().main()
            return nil
        }, context)
        precondition(status == 0, "pthread_create failed: \(status)")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` on this thread and returns when it has run.
    func run(_ body: () -> Void) {
        withoutActuallyEscaping(body) { body in
            pthread_mutex_lock(mutex)
            work = body
            workDone = false
            pthread_cond_broadcast(condition)
            while !workDone {
                pthread_cond_wait(condition, mutex)
            }
            pthread_mutex_unlock(mutex)
        }
    }

    /// Ends the thread and waits for it.
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        pthread_join(thread, nil)
    }

    private func main() {
        lowerOwnPriority()
        pthread_mutex_lock(mutex)
        while true {
            if let body = work {
                body()
                work = nil
                workDone = true
                pthread_cond_broadcast(condition)
            } else if stopping {
                break
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
        pthread_mutex_unlock(mutex)
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
