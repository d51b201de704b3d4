#if canImport(Glibc)
    import Glibc
#endif

/// A mutex and a condition variable together, for a thread that waits until another has done
/// something (the priority spawner's hand-over, a remote fetch's answer). Synchronization's
/// `Mutex` has no way to wait; `wait()` releases the lock while it sleeps.
package final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Sleeps until `broadcast`, the lock released meanwhile; only inside `withLock`, in a loop
    /// that checks what it waits for (a wake-up may come for nothing).
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes every thread in `wait`; inside `withLock`.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
