import Dispatch
import OpsrunCore
import OpsrunIncremental

/// The state (`.opsrun/state`), opened on another thread while the manifest is read: a run and a
/// plan need both, and each takes a few milliseconds for a large project (4 ms apiece for 10,000
/// tasks), one after the other otherwise.
///
/// Only where a state file exists: a project without one opens (and creates) it when it runs, as
/// before, and nothing is locked for a project that has never recorded anything.
public final class StatePreload: @unchecked Sendable {
    private let group = DispatchGroup()
    // Written by the opening thread before it leaves `group`; read after `group.wait()`.
    private var store: StateStore?

    /// Starts opening `<manifestDirectory>/.opsrun`, or `nil` when it holds no state file.
    public init?(manifestDirectory: String) {
        let directory = StateDirectory.path(forManifestIn: manifestDirectory)
        guard FileText.isFile(directory + "/" + StateStore.fileName) else { return nil }
        DispatchQueue.global().async(group: group) { self.store = StateStore(directory: directory) }
    }

    /// The opened store: waits for it. The caller owns it from then on (and closes it).
    func take() -> StateStore? {
        group.wait()
        defer { store = nil }
        return store
    }
}
