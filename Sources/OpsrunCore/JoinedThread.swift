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

    /// Starts `body` on a new thread; `startingOnAnotherCPU`: on a CPU other than the caller's,
    /// for a thread that works beside its creator (`ThreadPlacement`).
    package init(startingOnAnotherCPU: Bool = false, _ body: @escaping @Sendable () -> Result) {
        let slot = slot
        let placement = startingOnAnotherCPU ? ThreadPlacement() : nil
        let context = Unmanaged.passRetained(ThreadStart {
            placement?.release()
            slot.value = body()
        }).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        placement?.apply(to: &attributes)
        let status = pthread_create(&thread, &attributes, { context in
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
