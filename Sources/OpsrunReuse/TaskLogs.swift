import OpsrunEngine

/// The output of each cacheable operation while it runs, for its cache entry (docs/manual/cache.md):
/// an observer between the engine and the run's printer that keeps what it needs and passes every
/// event on.
package final class TaskLogs: RunObserver {
    /// Whether an operation's log is wanted (made when first asked: a run in which every task is
    /// up to date writes no output and never asks).
    private let keeps: (Int) -> Bool
    private let next: RunObserver
    private var logs: [Int: (standardOutput: [UInt8], standardError: [UInt8])] = [:]
    /// Operations whose log outgrew `limit` this attempt: not stored.
    private var oversize: Set<Int> = []
    /// A log larger than this is not kept, and its task not stored.
    static let limit = 64 << 20

    init(keeping keeps: @escaping (Int) -> Bool, next: RunObserver) {
        self.keeps = keeps
        self.next = next
    }

    package func handle(_ event: RunEvent) {
        switch event {
        case .output(let index, let stream, let bytes) where keeps(index):
            var log = logs[index] ?? ([], [])
            if log.standardOutput.count + log.standardError.count + bytes.count <= Self.limit {
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

    /// The operation's log so far, and forgets it; `nil` when it outgrew `limit`.
    func take(_ index: Int) -> (standardOutput: [UInt8], standardError: [UInt8])? {
        defer { logs[index] = nil }
        return oversize.contains(index) ? nil : logs[index] ?? ([], [])
    }
}
