#if canImport(Glibc)
    import Glibc
#endif

/// A thread that runs one closure and is joined by its owner: `join()` waits for it and hands
/// back what the closure returned; an owner that lets go of it without joining joins it then
/// (`deinit`), so no thread of opsrun outlives the object that started it.
package final class JoinedThread<Result> {
    /// Where the thread leaves its result: written before the thread ends, read only after
    /// `pthread_join`, which orders the two (hence `@unchecked Sendable`). The thread holds this,
    /// never the `JoinedThread`, so the owner's `deinit` (which joins) never runs on the thread
    /// it joins.
    private final class Slot: @unchecked Sendable {
        var value: Result?
    }

    private var thread = pthread_t()
    private let slot = Slot()
    private var joined = false

    /// Starts `body` on a new thread.
    package init(_ body: @escaping @Sendable () -> Result) {
        let slot = slot
        let context = Unmanaged.passRetained(ThreadStart { slot.value = body() }).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        precondition(status == 0, "pthread_create failed: \(status)")
    }

    deinit { if !joined { pthread_join(thread, nil) } }

    /// Waits for the thread to end and returns what its closure returned (`nil` once taken).
    @discardableResult
    package func join() -> Result? {
        if !joined {
            pthread_join(thread, nil)
            joined = true
        }
        defer { slot.value = nil }
        return slot.value
    }
}

/// What a new thread runs, handed over through `pthread_create`'s one pointer.
private final class ThreadStart: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
