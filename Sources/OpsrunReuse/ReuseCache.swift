import OpsrunCache
import OpsrunEngine
import OpsrunIncremental

/// The output cache as one run uses it (docs/manual/cache.md): which operations may be restored
/// and stored, their keys, restores and stores. The logs it stores are kept by its `logs`, the
/// observer the run's events pass through.
package final class ReuseCache {
    package let cache: OutputCache
    /// By operation, why it cannot be cached (`StrictEnvironment.whyNotCacheable`), `nil` for one
    /// that can. Made when first asked: a run in which every task is up to date never asks.
    private lazy var notCacheable: [String?] = makeNotCacheable()
    private let makeNotCacheable: () -> [String?]
    /// `-B` runs everything: nothing is restored, what runs is still stored.
    private let restores: Bool
    /// The output of the cacheable operations: put it between the engine and the run's observer.
    package private(set) lazy var logs = TaskLogs(keeping: { [unowned self] in self.isCacheable($0) }, next: next)
    private let next: RunObserver
    /// The keys of operations whose entries are being fetched ahead, for their restore.
    private var prefetchedKeys: [Int: CacheKey] = [:]

    /// The root manifest's directory: no restore writes outside it.
    private let projectRoot: String
    /// Says a warning (an entry refused).
    private let warn: (String) -> Void

    /// `notCacheable`: why each operation cannot be cached, `nil` for one that can; `next`: the
    /// run's observer, which `logs` passes every event on to.
    package init(
        cache: OutputCache, projectRoot: String, notCacheable: @escaping () -> [String?], restores: Bool,
        next: RunObserver, warn: @escaping (String) -> Void
    ) {
        self.cache = cache
        self.projectRoot = projectRoot
        self.warn = warn
        makeNotCacheable = notCacheable
        self.restores = restores
        self.next = next
    }

    func isCacheable(_ index: Int) -> Bool { notCacheable[index] == nil }

    /// Why the operation cannot be cached, for `--explain`; `nil` when it can.
    func whyNotCacheable(_ index: Int) -> String? { notCacheable[index] }

    /// The task's key; for a task with a depfile, without what its depfile listed (its entries
    /// are found through the candidates kept under it: docs/cache.md, "Depfile tasks").
    private func key(_ check: TaskCheck) -> CacheKey {
        CacheKey(
            task: check.task.name, definition: check.declaredDefinitionDigest, outputs: check.task.outputs,
            depfile: check.task.depfile)
    }

    /// Whether restores are worth starting ahead, before the operations are decided: when they
    /// may ask a server.
    var fetchesAhead: Bool { restores && cache.fetchesRemotely }

    /// Starts fetching from the server what restoring this operation needs (`check` says it must
    /// run), so that its `restore` finds it there or in flight.
    func fetchAhead(_ index: Int, _ check: TaskCheck) {
        guard restores, isCacheable(index) else { return }
        let key = key(check)
        prefetchedKeys[index] = key
        // A depfile task's entry names its candidate list, which may be no larger than a list may.
        cache.prefetch(key, blobLimit: check.task.depfile == nil ? RemotePrefetch.blobsLimit : DepfileCandidates.sizeLimit)
    }

    /// The task's outputs restored and its log, if the cache has them, with (for a task with a
    /// depfile) the inputs of the candidate restored. An entry that would write anything but the
    /// task's declared outputs is refused whole, with a warning. `matching`: whether a candidate's
    /// inputs all have that content now.
    func restore(
        _ index: Int, _ check: TaskCheck, matching: ([FileDigest]) -> Bool
    ) -> (restored: OutputCache.Restored, discovered: [FileDigest]?)? {
        guard restores, isCacheable(index) else { return nil }
        let key = prefetchedKeys.removeValue(forKey: index) ?? key(check)
        let place = OutputPlace(
            projectRoot: projectRoot, taskDirectory: check.task.absoluteDirectory, outputs: check.task.outputs)
        let outcome: OutputCache.Outcome
        var discovered: [FileDigest]?
        if check.task.depfile != nil {
            (outcome, discovered) = cache.restore(candidatesOf: key, into: place, matching: matching)
        } else {
            outcome = cache.restore(key, into: place)
        }
        switch outcome {
        case .restored(let restored): return (restored, discovered)
        case .missed: return nil
        case .refused(let reason):
            warn("warning: cache entry for '\(check.task.name)' \(reason); not restored")
            return nil
        }
    }

    /// Stores a task that succeeded, with the outputs it left (`nil`: one is missing or not a
    /// file) and, for a task with a depfile, what it listed (`nil`: nothing that can be kept).
    func store(_ index: Int, _ check: TaskCheck, _ success: CacheableSuccess) {
        guard let log = logs.take(index), let outputs = success.outputs else { return }
        let files = outputs.map { ($0.path, $0.digest.description) }
        if check.task.depfile != nil {
            guard let discovered = success.discovered else { return }
            cache.store(
                candidateOf: key(check), inputs: discovered, directory: check.task.absoluteDirectory, files: files,
                standardOutput: log.standardOutput, standardError: log.standardError)
        } else {
            cache.store(
                key(check), directory: check.task.absoluteDirectory, files: files,
                standardOutput: log.standardOutput, standardError: log.standardError)
        }
    }
}
