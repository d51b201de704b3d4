import OpsrunCache
import OpsrunEngine
import OpsrunIncremental
import OpsrunReport

/// The output cache as one run uses it (docs/manual/cache.md): which operations may be restored and stored,
/// their keys, and the log of each while it runs. It sits between the engine and the run's
/// observer, keeping the output of cacheable operations; everything else passes through.
final class RunCache: RunObserver {
    let cache: OutputCache
    /// By operation: a task with `sources`, `outputs` and commands, not `cache: false`, not
    /// interactive, without a depfile (whose inputs are known only after it ran). Made when first
    /// asked: a run in which every task is up to date never asks.
    private lazy var cacheable: [Bool] = makeCacheable()
    private let makeCacheable: () -> [Bool]
    /// `-B` runs everything: nothing is restored, what runs is still stored.
    private let restores: Bool
    private let next: RunObserver
    private var logs: [Int: (standardOutput: [UInt8], standardError: [UInt8])] = [:]
    /// Operations whose log outgrew `logLimit` this attempt: not stored.
    private var oversize: Set<Int> = []
    /// The keys of operations whose entries are being fetched ahead, for their restore.
    private var prefetchedKeys: [Int: CacheKey] = [:]
    /// A log larger than this is not kept, and its task not stored.
    private static let logLimit = 64 << 20

    /// The root manifest's directory: no restore writes outside it.
    private let projectRoot: String
    /// Says a warning (an entry refused).
    private let warn: (String) -> Void

    init(
        cache: OutputCache, projectRoot: String, cacheable: @escaping () -> [Bool], restores: Bool, next: RunObserver,
        warn: @escaping (String) -> Void
    ) {
        self.cache = cache
        self.projectRoot = projectRoot
        self.warn = warn
        makeCacheable = cacheable
        self.restores = restores
        self.next = next
    }

    func isCacheable(_ index: Int) -> Bool { cacheable[index] }

    func handle(_ event: RunEvent) {
        switch event {
        case .output(let index, let stream, let bytes) where cacheable[index]:
            var log = logs[index] ?? ([], [])
            if log.standardOutput.count + log.standardError.count + bytes.count <= Self.logLimit {
                if stream == .standardOutput { log.standardOutput += bytes } else { log.standardError += bytes }
                logs[index] = log
            } else {
                oversize.insert(index)
                logs[index] = nil
            }
        case .retrying(let index, _, _), .finished(let index, _, _), .cancelled(let index, _):
            // A retry's log starts afresh; an ended operation's was stored or is not wanted.
            logs[index] = nil
            oversize.remove(index)
        default: break
        }
        next.handle(event)
    }

    private func key(_ check: TaskCheck) -> CacheKey {
        CacheKey(task: check.task.name, definition: check.definitionDigest, outputs: check.task.outputs)
    }

    /// Whether restores are worth starting ahead, before the operations are decided: when they
    /// may ask a server.
    var fetchesAhead: Bool { restores && cache.fetchesRemotely }

    /// Starts fetching from the server what restoring this operation needs (`check` says it must
    /// run), so that its `restore` finds it there or in flight.
    func fetchAhead(_ index: Int, _ check: TaskCheck) {
        guard restores, cacheable[index] else { return }
        let key = key(check)
        prefetchedKeys[index] = key
        cache.prefetch(key)
    }

    /// The task's outputs restored and its log, if the cache has them. An entry that would write
    /// anything but the task's declared outputs is refused whole, with a warning.
    func restore(_ index: Int, _ check: TaskCheck) -> OutputCache.Restored? {
        guard restores, cacheable[index] else { return nil }
        let key = prefetchedKeys.removeValue(forKey: index) ?? key(check)
        let place = OutputPlace(
            projectRoot: projectRoot, taskDirectory: check.task.absoluteDirectory, outputs: check.task.outputs)
        switch cache.restore(key, into: place) {
        case .restored(let restored): return restored
        case .missed: return nil
        case .refused(let reason):
            warn("warning: cache entry for '\(check.task.name)' \(reason); not restored")
            return nil
        }
    }

    /// Stores a task that succeeded, with the outputs it left (`nil`: one is missing or not a file).
    func store(_ index: Int, _ check: TaskCheck, outputs: [FileDigest]?) {
        let log = logs.removeValue(forKey: index) ?? ([], [])
        guard let outputs, !oversize.contains(index) else { return }
        cache.store(
            key(check), directory: check.task.absoluteDirectory,
            files: outputs.map { ($0.path, $0.digest.description) },
            standardOutput: log.standardOutput, standardError: log.standardError)
    }
}
