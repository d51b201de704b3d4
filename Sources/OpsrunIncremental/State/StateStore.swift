// `.opsrun/state` beside the manifest: a snapshot followed by an append-only log of events (see
// StateLog for the layout and for how a torn tail is told from damage). Why it can never make a
// task look up to date when it is not:
//   - a task's record is appended only after the task succeeded and its outputs were hashed;
//   - before a task that has a record runs again, a "started" record is appended and fsync'ed
//     (`recordStarted`), so a run that then fails, is interrupted or dies — even by power loss —
//     leaves the task "unfinished", never its older record. This costs one fdatasync (about 0.3 ms
//     here) per re-run of a task that had succeeded before, and nothing on a first build;
//   - a lost or torn record is always the newest event of its task: losing a success record leaves
//     "unfinished"; losing a "started" record (cut while writing it) means the task had not started;
//   - a record also lists its outputs' digests, so even an older record only holds while the
//     outputs are exactly the bytes it describes (UpToDateCheck);
//   - a stat entry is only ever found under the exact path it was recorded for: keys are
//     project-relative but one-to-one with absolute paths (StatePathKeys), and the snapshot
//     compares a key's bytes, never just its hash.
// Compaction writes every live record as a new snapshot to a temporary file, fsyncs it, renames it
// over the log and fsyncs the directory, so the log is always either the old or the new file, both
// complete. It runs when the events appended after the snapshot exceed 64 KiB and an eighth of the
// snapshot: at the end of a session (`close`), and before the first write of one.
// Opening reads the file, verifies it and indexes the snapshot; a task's record or a file's stat
// entry is decoded only when asked for (`entry(for:)`, `statEntry(at:)`), so a run pays for what it
// looks at, not for the whole history of the project.
// A lock file keeps two opsrun processes from interleaving writes; the second one neither trusts nor
// records state (everything it is asked about runs), with a warning. A run (not a plan) creates
// `.opsrun/` when it opens the state and takes the lock at once: otherwise the first run of a
// project held no lock until its first task ended, and a second one started meanwhile ran beside
// it with no warning.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OpsrunCore

/// The persistent record of task runs and of the stat cache, in `<manifest directory>/.opsrun/`.
public final class StateStore {
    public static let fileName = "state"

    /// The `.opsrun` directory.
    public let directory: String
    /// The log file, as diagnostics name it.
    public var path: String { FileSystem.join(directory, Self.fileName) }
    /// Warnings met while opening; each problem is reported once.
    public private(set) var diagnostics: [Diagnostic] = []

    private let keys: StatePathKeys
    /// The file as read, owned here: the snapshot is decoded from it on demand.
    private var contents: UnsafeMutableRawBufferPointer?
    private var snapshot: StateSnapshot?
    /// The header and snapshot frame's size: events start there.
    private var snapshotEnd = 0
    /// Tasks and stat entries (by key, as the snapshot has them) of the events after the snapshot;
    /// they override it. By key, so that a file the run names relative to the project is looked
    /// up without making its absolute path.
    private var tasks: [String: StoredTask] = [:]
    private var stats: [String: StatCacheEntry] = [:]

    private let compactionMinimumBytes: Int
    /// Bytes of the file that hold verified data; what lies beyond is a torn tail to cut off.
    private var validLength = 0
    /// The file is missing, foreign, damaged or older: the first write creates it afresh.
    private var mustRecreate = true
    /// The file and its lock: `.opsrun/state` on disk, or memory in tests.
    private let medium: StateMedium
    /// After another process's lock or a failed write: nothing more is written.
    private var isDisabled = false
    /// Stats of the files the state knows, being taken on other threads (`prefetchStats()`): those
    /// of the snapshot by their position in it, then those only the events know, at their
    /// `eventPositions`.
    private var prefetch: (stats: StatPrefetch, eventPositions: [String: Int])?

    /// Opens the state in `directory` (normally `<manifest directory>/.opsrun`) and reads it. Never
    /// fails: an unreadable, foreign or damaged file is a warning in `diagnostics` and empty state.
    /// - Parameters:
    ///   - compactionMinimumBytes: events after the snapshot below this size are never compacted.
    ///   - creating: make `directory` if it is not there, and lock it now (a run); otherwise (a
    ///     plan, a tool) nothing is created until the first record is written.
    ///   - medium: where the bytes are; `.opsrun/state` in `directory` unless given.
    public init(
        directory: String, compactionMinimumBytes: Int = 1 << 16, creating: Bool = false, medium: StateMedium? = nil
    ) {
        self.directory = directory
        self.keys = StatePathKeys(stateDirectory: directory)
        self.compactionMinimumBytes = compactionMinimumBytes
        self.medium = medium ?? StateFiles(directory: directory)
        if self.medium.prepare(creating: creating), !lock() { return }
        load()
    }

    deinit {
        close()
        contents?.deallocate()
    }

    // MARK: - Prefetching stats

    /// Starts statting, on other threads, every file the state has a stat entry for (see
    /// `StatPrefetch`): `prefetchedStatus` then hands out those stats, until `stopPrefetching()`,
    /// the first write or `close`. Nothing happens for fewer than `StatPrefetch.minimumFileCount` files.
    /// The events' entries count too: the first no-op after a clean build records its outputs'
    /// there (they were too new to trust when written), and fewer than 64 KiB of events are never
    /// compacted, so every later no-op statted c300's 300 objects on the run's thread (4.55 ->
    /// 3.69 ms, five alternations).
    public func prefetchStats(files: any FileAccess = DiskFiles()) {
        guard prefetch == nil, !isDisabled else { return }
        var keys = snapshot?.statKeys() ?? []
        var events: [String: Int] = [:]
        // In the order of their paths, about the order the checks ask in: a check then seldom
        // waits for a later run of 256 (4.36 -> 4.12 ms against the dictionary's order, six
        // alternations).
        for key in stats.keys.sorted(by: UTF8Text.precedes) where !snapshotHasStat(key) {
            events[key] = keys.count
            keys.append(key)
        }
        // Keys are relative to the project unless they start with "/".
        guard keys.count >= StatPrefetch.minimumFileCount,
              let taking = StatPrefetch(
                paths: keys, relativeTo: self.keys.project.isEmpty ? "/" : self.keys.project, files: files)
        else { return }
        prefetch = (taking, events)
    }

    private func snapshotHasStat(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { snapshot?.statPosition(key: UnsafeRawBufferPointer($0)) } != nil
    }

    /// The stat the prefetch took of the file with key `key` (see `statEntry(projectKey:)`):
    /// `.some(nil)` when nothing was there, `nil` when none was taken.
    func prefetchedStatus(projectKey key: String) -> FileStatus?? {
        guard let prefetch else { return nil }
        var key = key
        guard let position = key.withUTF8({ snapshot?.statPosition(key: UnsafeRawBufferPointer($0)) })
            ?? prefetch.eventPositions[key]
        else { return nil }
        return .some(prefetch.stats.status(ofFile: position))
    }

    /// The same for the file at `path` (absolute).
    func prefetchedStatus(at path: String) -> FileStatus?? {
        guard prefetch != nil else { return nil }
        return prefetchedStatus(projectKey: keys.key(of: path))
    }

    /// Stops the stat prefetch and joins its threads (each ends with the chunk it holds); no stat
    /// is handed out from then on. Before a command starts: files may change from then on.
    public func stopPrefetching() {
        prefetch?.stats.finish()
        prefetch = nil
    }

    /// Compacts if the events after the snapshot have grown large (unless `compacting` is false:
    /// a store opened ahead of need and not used), then closes the log and releases the lock; later
    /// writes are ignored. A returned warning means compacting failed and the state was removed
    /// (which is safe: tasks only run again).
    @discardableResult
    public func close(compacting: Bool = true) -> Diagnostic? {
        stopPrefetching()
        var problem: Diagnostic?
        // Only with the lock held (so also in a session that wrote nothing: a long tail left by
        // killed runs is then folded in), and never to create a file that is not there.
        if compacting, !isDisabled, !mustRecreate, medium.isOpenForAppending || medium.holdsLock, shouldCompact {
            do { try compact() } catch { problem = error }
        }
        medium.closeAppending()
        medium.unlock()
        isDisabled = true
        return problem
    }

    // MARK: - Reading

    /// What the state knows of `task`: the newest event about it, else the snapshot's record.
    public func entry(for task: String) -> TaskEntry? {
        if !tasks.isEmpty, let stored = tasks[task] { return stored.entry }
        return snapshot?.task(named: task)?.entry
    }

    /// The trusted stat cache entry of the file at `path` (absolute), if the state has one.
    public func statEntry(at path: String) -> StatCacheEntry? {
        if !stats.isEmpty, let entry = stats[keys.key(of: path)] { return entry }
        guard snapshot != nil else { return nil }
        var path = path
        return path.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            return snapshot?.statEntry(key: UnsafeRawBufferPointer(rebasing: raw[keys.keyRange(of: raw)]))
        }
    }

    /// The same for a file whose key (see `StatePathKeys`) the caller knows: a path relative to
    /// `projectDirectory`, not starting with `/`; no absolute path is made.
    func statEntry(projectKey key: String) -> StatCacheEntry? {
        if !stats.isEmpty, let entry = stats[key] { return entry }
        // One read of `snapshot`, not two: each is an exclusivity check at run time, and a no-op
        // asks this for every file (20,000 times for 10,000 tasks).
        var key = key
        return key.withUTF8 { snapshot?.statEntry(key: UnsafeRawBufferPointer($0)) }
    }

    /// The directory state keys are relative to: the parent of `directory`.
    var projectDirectory: String { keys.project }

    /// Every task's entry, decoded: for tests and tools, not for a run (which asks task by task).
    func allEntries() -> [String: TaskEntry] { allTasks().mapValues { $0.entry } }

    /// Every stat cache entry by absolute path, decoded: for tests and tools.
    func allStatEntries() -> [String: StatCacheEntry] {
        var result: [String: StatCacheEntry] = [:]
        for (key, entry) in snapshot?.allStats() ?? [:] { result[keys.absolute(of: key)] = entry }
        for (key, entry) in stats { result[keys.absolute(of: key)] = entry }
        return result
    }

    private func allTasks() -> [String: StoredTask] {
        var result = snapshot?.allTasks() ?? [:]
        result.merge(tasks) { _, newer in newer }
        return result
    }

    private func load() {
        let buffer: UnsafeMutableRawBufferPointer
        let length: Int
        switch medium.readAll() {
        case .missing: return
        case .failed(let problem): return warn("cannot be read (\(problem))")
        case .read(let read, let count): (buffer, length) = (read, count)
        }
        contents = buffer
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<length])
        let parsed = StateLog.parse(bytes) { record, _ in apply(record) }
        if let problem = parsed.problem {
            return discard(problem)
        }
        if parsed.isOlderFormat { return discard(nil) }
        if let range = parsed.snapshot {
            guard let snapshot = StateSnapshot(UnsafeRawBufferPointer(rebasing: bytes[range])) else {
                return discard(.damaged(offset: StateLog.header.count))
            }
            self.snapshot = snapshot
            snapshotEnd = range.upperBound + StateLog.checksumLength
        }
        validLength = parsed.validLength
        mustRecreate = false
    }

    /// Forgets what was read; with a problem, says so once.
    private func discard(_ problem: StateLog.Problem?) {
        tasks = [:]
        stats = [:]
        snapshot = nil
        switch problem {
        case nil: return
        case .foreign?: warn("not an opsrun state file")
        case .newerVersion(let version)?: warn("written by a newer opsrun (state format \(version))")
        case .damaged(let offset)?: warn("damaged at byte \(offset)")
        }
    }

    private func warn(_ problem: String) {
        diagnostics.append(Diagnostic(
            .warning, at: nil, file: path, "\(problem); starting with no record of previous runs"))
    }

    /// Makes an event the newest word on its task or file.
    private func apply(_ record: StateRecord) {
        switch record {
        case .succeeded(let task, let directory, let record):
            tasks[task] = StoredTask(entry: .succeeded(record), directory: directory)
        case .started(let task):
            tasks[task] = StoredTask(entry: .unfinished, directory: "")
        case .stat(let key, let entry):
            stats[key] = entry
        }
    }

    // MARK: - Writing

    /// Marks a task as running, durably, before its commands start, if it has a recorded success
    /// (otherwise there is nothing to invalidate and nothing is written).
    public func recordStarted(_ task: String) throws(Diagnostic) {
        guard case .succeeded = entry(for: task) else { return }
        try append([.started(task: task)], durable: true)
    }

    /// Records a successful run, after its outputs were hashed, with new stat cache entries.
    /// Not synced: losing it only makes the task run again.
    /// - Parameter directory: the task's absolute working directory (its record's paths are
    ///   relative to it); the project's directory when `nil`.
    public func recordSucceeded(
        _ task: String, _ record: TaskRecord, directory: String? = nil,
        statEntries: [(path: String, entry: StatCacheEntry)] = []
    ) throws(Diagnostic) {
        let directoryKey = directory.map(keys.directoryKey(of:)) ?? ""
        try append(
            statEntries.filter { $0.entry.isTrusted }.map { .stat(key: keys.key(of: $0.path), entry: $0.entry) }
                + [.succeeded(task: task, directory: directoryKey, record: record)],
            durable: false)
    }

    /// Persists stat cache entries (only trusted ones are kept).
    public func recordStatEntries(_ statEntries: [(path: String, entry: StatCacheEntry)]) throws(Diagnostic) {
        let trusted = statEntries.filter { $0.entry.isTrusted && statEntry(at: $0.path) != $0.entry }
        if trusted.isEmpty { return }
        try append(trusted.map { .stat(key: keys.key(of: $0.path), entry: $0.entry) }, durable: false)
    }

    private func append(_ records: [StateRecord], durable: Bool) throws(Diagnostic) {
        stopPrefetching()
        guard !isDisabled else { return }
        try openForAppending()
        var buffer: [UInt8] = []
        for record in records { buffer.append(contentsOf: StateLog.frame(record)) }
        guard medium.append(buffer, durable: durable) else {
            throw failed("cannot be written (\(medium.lastErrorText))")
        }
        validLength += buffer.count
        for record in records { apply(record) }
    }

    private func openForAppending() throws(Diagnostic) {
        guard !medium.isOpenForAppending else { return }
        if mustRecreate || shouldCompact { try compact() }
        // Cut a torn tail off, or new frames would follow bytes that do not verify.
        guard medium.openForAppending(keeping: validLength) else {
            throw failed("cannot be written (\(medium.lastErrorText))")
        }
    }

    /// The events after the snapshot are over the minimum and an eighth of the snapshot: reading
    /// them (eagerly) starts to cost more than a rewrite saves.
    private var shouldCompact: Bool {
        let events = validLength - snapshotEnd
        return events > compactionMinimumBytes && events > (snapshotEnd - StateLog.header.count) / 8
    }

    /// Rewrites the state as one snapshot of its live records: temporary file, fsync, rename, fsync
    /// directory. The new snapshot is then the one read from.
    func compact() throws(Diagnostic) {
        guard medium.prepare(creating: true) else {
            throw failed("cannot be written (\(medium.lastErrorText))")
        }
        guard medium.holdsLock || lock() else {
            // Another opsrun took the directory since this one found it empty: leave its log alone.
            isDisabled = true
            throw Diagnostic(.warning, at: nil, file: path, "in use by another opsrun; the results of this run are not recorded")
        }
        medium.closeAppending()
        var stats: [String: StatCacheEntry] = snapshot?.allStats() ?? [:]
        stats.merge(self.stats) { _, newer in newer }
        let payload = StateSnapshotWriter.payload(tasks: allTasks(), stats: stats, keys: keys)
        let bytes = StateLog.file(snapshot: payload)
        guard medium.replace(with: bytes) else {
            throw failed("cannot be written (\(medium.lastErrorText))")
        }
        adopt(bytes, snapshotLength: payload.count)
        mustRecreate = false
    }

    /// Reads from `bytes`, a whole state file just written with no events after its snapshot.
    private func adopt(_ bytes: [UInt8], snapshotLength: Int) {
        // Its stats are by position in the snapshot being replaced.
        stopPrefetching()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        let start = StateLog.header.count + 4
        snapshot = StateSnapshot(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + snapshotLength)]))
        contents?.deallocate()
        contents = buffer
        tasks = [:]
        stats = [:]
        snapshotEnd = bytes.count
        validLength = bytes.count
    }

    /// Gives up writing after a failure and removes the log: a half-written or unsynced "started"
    /// record must not leave an older success record standing, and no state at all is always safe.
    private func failed(_ problem: String) -> Diagnostic {
        medium.closeAppending()
        medium.remove()
        isDisabled = true
        return Diagnostic(.warning, at: nil, file: path, "\(problem); the results of this run are not recorded")
    }

    /// Takes the lock beside the log; without it nothing is trusted or written.
    private func lock() -> Bool {
        switch medium.lock() {
        // A read-only project cannot be locked, nor written; reading it is still right.
        case .taken, .unavailable: return true
        case .heldByAnotherProcess:
            isDisabled = true
            diagnostics.append(Diagnostic(
                .warning, at: nil, file: path,
                "in use by another opsrun; this run neither trusts nor records it (every task runs)"))
            return false
        }
    }
}
