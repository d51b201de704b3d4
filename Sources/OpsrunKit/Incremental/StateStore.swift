// `.opsrun/state` beside the manifest, an append-only log (see StateLog for the layout and for how a
// torn tail is told from damage). Why it can never make a task look up to date when it is not:
//   - a task's record is appended only after the task succeeded and its outputs were hashed;
//   - before a task that has a record runs again, a "started" record is appended and fsync'ed
//     (`recordStarted`), so a run that then fails, is interrupted or dies — even by power loss —
//     leaves the task "unfinished", never its older record. This costs one fdatasync (about 0.3 ms
//     here) per re-run of a task that had succeeded before, and nothing on a first build;
//   - a lost or torn record is always the newest event of its task: losing a success record leaves
//     "unfinished"; losing a "started" record (cut while writing it) means the task had not started;
//   - a record also lists its outputs' digests, so even an older record only holds while the
//     outputs are exactly the bytes it describes (UpToDateCheck).
// Compaction rewrites the live records to a temporary file, fsyncs it, renames it over the log and
// fsyncs the directory, so the log is always either the old or the new file, both complete. It runs
// before the first write of a session once the log is more than twice its live size.
// A lock file keeps two opsrun processes from interleaving writes; the second one neither trusts nor
// records state (everything it is asked about runs), with a warning.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The persistent record of task runs and of the stat cache, in `<manifest directory>/.opsrun/`.
public final class StateStore {
    public static let directoryName = ".opsrun"
    public static let fileName = "state"

    /// The `.opsrun` directory.
    public let directory: String
    /// The log file, as diagnostics name it.
    public var path: String { FileSystem.join(directory, Self.fileName) }
    /// The latest entry of every task.
    public private(set) var entries: [String: TaskEntry] = [:]
    /// Trusted stat cache entries by absolute path; seed `FileHasher` with them.
    public private(set) var statCache: [String: StatCacheEntry] = [:]
    /// Warnings met while opening; each problem is reported once.
    public private(set) var diagnostics: [Diagnostic] = []

    private let compactionMinimumBytes: Int
    private var liveBytes = 0
    /// Bytes of the file that hold verified data; what lies beyond is a torn tail to cut off.
    private var validLength = 0
    /// The file is missing, foreign or damaged: the first write creates it afresh.
    private var mustRecreate = true
    private var descriptor: Int32 = -1
    private var lockDescriptor: Int32 = -1
    /// After another process's lock or a failed write: nothing more is written.
    private var isDisabled = false

    /// Opens the state in `directory` (normally `<manifest directory>/.opsrun`) and reads it. Never
    /// fails: an unreadable, foreign or damaged file is a warning in `diagnostics` and empty state.
    /// Nothing is created until the first record is written.
    public init(directory: String, compactionMinimumBytes: Int = 1 << 16) {
        self.directory = directory
        self.compactionMinimumBytes = compactionMinimumBytes
        if FileSystem.status(directory)?.kind == .directory, !lock() { return }
        load()
    }

    deinit { close() }

    /// Closes the log and releases the lock; later writes are ignored.
    public func close() {
        if descriptor >= 0 { closeDescriptor(descriptor) }
        if lockDescriptor >= 0 { closeDescriptor(lockDescriptor) }
        descriptor = -1
        lockDescriptor = -1
        isDisabled = true
    }

    /// Marks a task as running, durably, before its commands start, if it has a recorded success
    /// (otherwise there is nothing to invalidate and nothing is written).
    public func recordStarted(_ task: String) throws(Diagnostic) {
        guard case .succeeded = entries[task] else { return }
        try append([.started(task: task)], durable: true)
    }

    /// Records a successful run, after its outputs were hashed, with new stat cache entries.
    /// Not synced: losing it only makes the task run again.
    public func recordSucceeded(
        _ task: String, _ record: TaskRecord, statEntries: [(path: String, entry: StatCacheEntry)] = []
    ) throws(Diagnostic) {
        try append(statEntries.map { .stat(path: $0.path, entry: $0.entry) } + [.succeeded(task: task, record: record)], durable: false)
    }

    /// Persists stat cache entries (only trusted ones are kept).
    public func recordStatEntries(_ statEntries: [(path: String, entry: StatCacheEntry)]) throws(Diagnostic) {
        let trusted = statEntries.filter { $0.entry.isTrusted && statCache[$0.path] != $0.entry }
        if trusted.isEmpty { return }
        try append(trusted.map { .stat(path: $0.path, entry: $0.entry) }, durable: false)
    }

    // MARK: - Reading

    private func load() {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno != ENOENT { warn("cannot be read (\(FileSystem.lastErrorText()))") }
            return
        }
        defer { closeDescriptor(descriptor) }
        // One buffer of the file's size, read in place: the log of a large project is megabytes.
        var capacity = Int(FileSystem.status(descriptor: descriptor)?.size ?? 0) + 1
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var length = 0
        while true {
            if length == capacity {
                let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * capacity, alignment: 16)
                larger.copyMemory(from: UnsafeRawBufferPointer(buffer))
                buffer.deallocate()
                buffer = larger
                capacity *= 2
            }
            let count = read(descriptor, buffer.baseAddress! + length, capacity - length)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                warn("cannot be read (\(FileSystem.lastErrorText()))")
                return
            }
            length += count
        }
        // A rough guess of how many tasks and files the log holds, to spare rehashing as it is read.
        entries.reserveCapacity(length / 256)
        statCache.reserveCapacity(length / 256)
        liveBytes = StateLog.header.count
        let contents = StateLog.parse(UnsafeRawBufferPointer(rebasing: buffer[..<length])) { record, frameSize in
            apply(record, frameSize: frameSize)
        }
        if let problem = contents.problem {
            entries = [:]
            statCache = [:]
            liveBytes = 0
            switch problem {
            case .foreign: return warn("not an opsrun state file")
            case .newerVersion(let version): return warn("written by a newer opsrun (state format \(version))")
            case .damaged(let offset): return warn("damaged at byte \(offset)")
            }
        }
        validLength = contents.validLength
        mustRecreate = false
    }

    private func warn(_ problem: String) {
        diagnostics.append(Diagnostic(
            .warning, at: nil, file: path, "\(problem); starting with no record of previous runs"))
    }

    /// Makes `record` the live one for its key, keeping `liveBytes` (the size a compacted log would
    /// have) exact: the record it replaces is re-encoded to know its size, which only happens for
    /// keys written more than once since the last compaction.
    private func apply(_ record: StateRecord, frameSize: Int) {
        let replaced: StateRecord?
        switch record {
        case .succeeded(let task, let taskRecord):
            replaced = entries.updateValue(.succeeded(taskRecord), forKey: task).map { Self.record(of: task, $0) }
        case .started(let task):
            replaced = entries.updateValue(.unfinished, forKey: task).map { Self.record(of: task, $0) }
        case .stat(let path, let entry):
            replaced = statCache.updateValue(entry, forKey: path).map { .stat(path: path, entry: $0) }
        }
        liveBytes += frameSize - (replaced.map { StateLog.frame($0).count } ?? 0)
    }

    /// The record that states `entry` of `task`.
    private static func record(of task: String, _ entry: TaskEntry) -> StateRecord {
        switch entry {
        case .succeeded(let record): .succeeded(task: task, record: record)
        case .unfinished: .started(task: task)
        }
    }

    // MARK: - Writing

    private func append(_ records: [StateRecord], durable: Bool) throws(Diagnostic) {
        guard !isDisabled else { return }
        try openForAppending()
        var buffer: [UInt8] = []
        var frameSizes: [Int] = []
        for record in records {
            let frame = StateLog.frame(record)
            frameSizes.append(frame.count)
            buffer.append(contentsOf: frame)
        }
        guard writeAll(descriptor, buffer), !durable || fdatasync(descriptor) == 0 else {
            throw failed("cannot be written (\(FileSystem.lastErrorText()))")
        }
        validLength += buffer.count
        for (record, size) in zip(records, frameSizes) { apply(record, frameSize: size) }
    }

    private func openForAppending() throws(Diagnostic) {
        guard descriptor < 0 else { return }
        if mustRecreate || (validLength > compactionMinimumBytes && validLength > 2 * liveBytes) {
            try compact()
        }
        descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        // Cut a torn tail off, or new frames would follow bytes that do not verify.
        guard descriptor >= 0, ftruncate(descriptor, off_t(validLength)) == 0 else {
            throw failed("cannot be written (\(FileSystem.lastErrorText()))")
        }
    }

    /// Rewrites the log with only its live records: temporary file, fsync, rename, fsync directory.
    func compact() throws(Diagnostic) {
        if mkdir(directory, 0o755) == 0 {
            // Keep opsrun's state out of version control without touching the project's .gitignore.
            _ = writeFile(FileSystem.join(directory, ".gitignore"), Array("*\n".utf8))
        } else if errno != EEXIST {
            throw failed("cannot be written (\(FileSystem.lastErrorText()))")
        }
        guard lockDescriptor >= 0 || lock() else {
            // Another opsrun took the directory since this one found it empty: leave its log alone.
            isDisabled = true
            throw Diagnostic(.warning, at: nil, file: path, "in use by another opsrun; the results of this run are not recorded")
        }
        if descriptor >= 0 {
            closeDescriptor(descriptor)
            descriptor = -1
        }
        var records: [StateRecord] = []
        for path in statCache.keys.sorted(by: TaskDefinitionInput.bytewise) {
            records.append(.stat(path: path, entry: statCache[path]!))
        }
        for task in entries.keys.sorted(by: TaskDefinitionInput.bytewise) {
            records.append(Self.record(of: task, entries[task]!))
        }
        var bytes = StateLog.header
        for record in records { bytes.append(contentsOf: StateLog.frame(record)) }
        liveBytes = bytes.count
        let temporary = path + ".tmp"
        guard writeFile(temporary, bytes, durable: true), rename(temporary, path) == 0 else {
            unlink(temporary)
            throw failed("cannot be written (\(FileSystem.lastErrorText()))")
        }
        syncDirectory()
        validLength = bytes.count
        mustRecreate = false
    }

    /// Gives up writing after a failure and removes the log: a half-written or unsynced "started"
    /// record must not leave an older success record standing, and no state at all is always safe.
    private func failed(_ problem: String) -> Diagnostic {
        if descriptor >= 0 {
            closeDescriptor(descriptor)
            descriptor = -1
        }
        unlink(path)
        syncDirectory()
        isDisabled = true
        return Diagnostic(.warning, at: nil, file: path, "\(problem); the results of this run are not recorded")
    }

    /// Takes the lock beside the log; without it nothing is trusted or written.
    private func lock() -> Bool {
        lockDescriptor = open(FileSystem.join(directory, "lock"), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        // A read-only project cannot be locked, nor written; reading it is still right.
        guard lockDescriptor >= 0 else { return true }
        if flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 { return true }
        closeDescriptor(lockDescriptor)
        lockDescriptor = -1
        isDisabled = true
        diagnostics.append(Diagnostic(
            .warning, at: nil, file: path,
            "in use by another opsrun; this run neither trusts nor records it (every task runs)"))
        return false
    }

    private func writeFile(_ path: String, _ bytes: [UInt8], durable: Bool = false) -> Bool {
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard file >= 0 else { return false }
        defer { closeDescriptor(file) }
        return writeAll(file, bytes) && (!durable || fsync(file) == 0)
    }

    private func writeAll(_ file: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(file, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    private func syncDirectory() {
        let handle = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard handle >= 0 else { return }
        fsync(handle)
        closeDescriptor(handle)
    }

}

/// `close(2)`, named apart from `StateStore.close()`.
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
