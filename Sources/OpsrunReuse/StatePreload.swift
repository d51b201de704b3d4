import OpsrunCore
import OpsrunIncremental

/// The state (`.opsrun/state`), opened on another thread while the manifest is read: a run and a
/// plan need both, and each takes a few milliseconds for a large project (4 ms apiece for 10,000
/// tasks), one after the other otherwise. Measured: a 10,000-task no-op took 1.05× as long
/// opening the state after the manifest (Benchmarks/README.md).
///
/// Only where a state file of `minimumBytes` or more exists: a project without one opens (and
/// creates) it when it runs, as before, and nothing is locked for a project that has never
/// recorded anything. The thread is this object's: `take()` joins it, and so does letting the
/// object go untaken (an error).
public final class StatePreload {
    private let opening: JoinedThread<StateStore>

    /// Below this size the state opens on the main thread, when needed: a thread costs more
    /// (its start, and the pages of its stack and heap) than reading a small state. Measured
    /// (no-ops, alternated): a one-task project 1.66 -> 1.51 ms and Lua's 39 tasks (a 46 KB state)
    /// 2.67 -> 2.47 ms without the thread; c300's 303 tasks (146 KB) 5.13 -> 5.57 ms without it.
    public static let minimumBytes = 64 * 1024

    /// Starts opening `<manifestDirectory>/.opsrun`, or `nil` when it holds no state file of
    /// `minimumBytes` or more. With `prefetchingStats` (not with `-B`: every task runs), the
    /// store then starts statting the files it knows (`StateStore.prefetchStats`), so that the
    /// stats are taken while the manifest is read and planned. The thread starts on another CPU
    /// than the caller's (`ThreadPlacement`): c300's no-op 5.22 -> 4.40 ms.
    public init?(manifestDirectory: String, minimumBytes: Int = StatePreload.minimumBytes, prefetchingStats: Bool = true) {
        let directory = StateDirectory.path(forManifestIn: manifestDirectory)
        guard let size = FileText.fileSize(directory + "/" + StateStore.fileName), size >= minimumBytes
        else { return nil }
        opening = JoinedThread(startingOnAnotherCPU: true) {
            let store = StateStore(directory: directory)
            if prefetchingStats { store.prefetchStats() }
            return store
        }
    }

    /// The opened store: waits for it. The caller owns it from then on (and closes it).
    public func take() -> StateStore? { opening.join() }
}
