import OpsrunCore
import OpsrunIncremental

/// The state (`.opsrun/state`), opened on another thread while the manifest is read: a run and a
/// plan need both, and each takes a few milliseconds for a large project (4 ms apiece for 10,000
/// tasks), one after the other otherwise. Measured: a 10,000-task no-op took 1.05× as long
/// opening the state after the manifest (Benchmarks/README.md).
///
/// Only where a state file exists: a project without one opens (and creates) it when it runs, as
/// before, and nothing is locked for a project that has never recorded anything. The thread is
/// this object's: `take()` joins it, and so does letting the object go untaken (an error).
public final class StatePreload {
    private let opening: JoinedThread<StateStore>

    /// Starts opening `<manifestDirectory>/.opsrun`, or `nil` when it holds no state file.
    public init?(manifestDirectory: String) {
        let directory = StateDirectory.path(forManifestIn: manifestDirectory)
        guard FileText.isFile(directory + "/" + StateStore.fileName) else { return nil }
        opening = JoinedThread { StateStore(directory: directory) }
    }

    /// The opened store: waits for it. The caller owns it from then on (and closes it).
    func take() -> StateStore? { opening.join() }
}
