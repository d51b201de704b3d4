// What the state holds, as read: the snapshot (decoded entry by entry, on demand), the events read
// after it (which override it), and the stats being taken of the files it knows. `StateStore`
// reads through its own reader; a copy reads the very same on another thread (`CheckAhead`), with
// lookup positions of its own, for as long as nothing is written: the store's writes, and the run
// before any command starts, stop such threads first.

/// Lookups in the state as read. A value: a copy is independent of the original.
/// `@unchecked Sendable`: the snapshot's bytes are the store's, never written while a copy is in
/// use on another thread, and the prefetch is safe to ask from several threads.
struct StateReader: @unchecked Sendable {
    let keys: StatePathKeys
    var snapshot: StateSnapshot?
    /// Tasks and stat entries (by key, as the snapshot has them) of the events after the snapshot;
    /// they override it. By key, so that a file the run names relative to the project is looked
    /// up without making its absolute path.
    var tasks: [String: StoredTask] = [:]
    var stats: [String: StatCacheEntry] = [:]
    /// Stats of the snapshot's files, by position in it (`StateStore.prefetchStats`).
    var prefetch: StatPrefetch?

    init(keys: StatePathKeys) { self.keys = keys }

    /// What the state knows of `task`: the newest event about it, else the snapshot's record.
    mutating func entry(for task: String) -> TaskEntry? {
        if !tasks.isEmpty, let stored = tasks[task] { return stored.entry }
        return snapshot?.task(named: task)?.entry
    }

    /// The trusted stat cache entry of the file at `path` (absolute), if the state has one.
    mutating func statEntry(at path: String) -> StatCacheEntry? {
        if !stats.isEmpty, let entry = stats[keys.key(of: path)] { return entry }
        guard snapshot != nil else { return nil }
        var path = path
        let keys = keys
        return path.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            return snapshot?.statEntry(key: UnsafeRawBufferPointer(rebasing: raw[keys.keyRange(of: raw)]))
        }
    }

    /// The same for a file whose key (see `StatePathKeys`) the caller knows: a path relative to
    /// the project directory, not starting with `/`; no absolute path is made.
    mutating func statEntry(projectKey key: String) -> StatCacheEntry? {
        if !stats.isEmpty, let entry = stats[key] { return entry }
        var key = key
        return key.withUTF8 { snapshot?.statEntry(key: UnsafeRawBufferPointer($0)) }
    }

    /// The stat the prefetch took of the file with key `key` (see `statEntry(projectKey:)`):
    /// `.some(nil)` when nothing was there, `nil` when none was taken.
    mutating func prefetchedStatus(projectKey key: String) -> FileStatus?? {
        guard let prefetch else { return nil }
        var key = key
        guard let position = key.withUTF8({ snapshot?.statPosition(key: UnsafeRawBufferPointer($0)) }) else { return nil }
        return .some(prefetch.status(ofFile: position))
    }

    /// The same for the file at `path` (absolute).
    mutating func prefetchedStatus(at path: String) -> FileStatus?? {
        guard prefetch != nil else { return nil }
        return prefetchedStatus(projectKey: keys.key(of: path))
    }
}
