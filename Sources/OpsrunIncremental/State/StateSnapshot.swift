// The snapshot: every live task record and stat cache entry, written whole by compaction and read
// lazily. A no-op run over 10,000 tasks asks about every task and every file once, and decoding all
// of it into dictionaries of strings up front cost more than the rest of the run's bookkeeping. So
// opening only walks the bytes once (checking every bound and index, making no strings) and indexes
// where each task and each stat entry is (`ByteKeyIndex`); a task's record is decoded when asked for.
// A run mostly asks in the order the snapshot is written (tasks by name, and for each task its
// outputs' then its sources' files, as IncrementalRun.check looks at them), so each lookup first
// tries the entry after the previous one found: a random probe of a hash table larger than the
// cache costs a cache miss, and 30,000 of them cost milliseconds.
//
// Layout of the payload (varints are LEB128; a string is a varint length and UTF-8 bytes):
//   varint digestCount, then digestCount × 32 bytes    each distinct digest once
//   varint taskCount, varint statCount                 statCount: embedded and loose stat entries
//   taskCount × task:  string name, varint bodyLength, body
//     body: byte 2 (unfinished)
//         | byte 1 (succeeded), string directory key, 4 × digest index (whole, commands,
//           environment, directory), files (outputs), files (sources), varint n,
//           n × (string task, files)                   prerequisites: opening skips them
//           [depfile]                                  only for a task with a depfile (DepfileRecord)
//     files: varint count, count × (string path, digest index, byte statLength, stat or nothing)
//   varint looseCount, looseCount × (string file key, byte statLength, stat)
//   stat: byte kind, varint size, mtime, ctime - mtime, inode (ByteWriter.status), digest index
// A file's stat is kept in the record of the task that names it (its key is the task's directory
// key joined with the path, see `StatePathKeys.embeddedKey`), each file's once; stats of files no
// record names this way are "loose". Only trusted stat entries are ever stored. Stats carry their
// length so that opening skips them; their content is checked when one is decoded.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OpsrunCore

/// What the state knows of a task, with the key of the directory it ran in.
struct StoredTask: Hashable, Sendable {
    var entry: TaskEntry
    /// `StatePathKeys.directoryKey` of the task's working directory; empty when `unfinished`.
    var directory: String
}

/// A verified snapshot payload, indexed at open and decoded on demand. Valid while its bytes are.
struct StateSnapshot {
    enum Kind: UInt8 { case succeeded = 1, unfinished = 2 }

    private let bytes: UnsafeRawBufferPointer
    private let digestStart: Int
    private let digestCount: Int
    /// Offsets of the tasks' names, in file order.
    private let taskOffsets: [UInt32]
    /// Task name → position in `taskOffsets`.
    private let tasks: ByteKeyIndex
    /// Where each stat entry is, in file order: (offset of its task's directory string + 1, or 0 for
    /// a loose entry) << 32 | offset of its file entry (path first).
    private let statLocations: [UInt64]
    /// File key → position in `statLocations`.
    private let stats: ByteKeyIndex
    /// The positions after the last task and stat entry found: where the next lookup looks first.
    private var nextTask = 0
    private var nextStat = 0

    /// Indexes `bytes`, or `nil` if they are not a well-formed snapshot.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count < Int(UInt32.max) else { return nil }
        var reader = ByteReader(bytes)
        guard let digestCount = reader.count(), digestCount <= bytes.count / 32 else { return nil }
        let digestStart = reader.index
        guard reader.skip(32 * digestCount), let taskCount = reader.count(), let statCount = reader.count() else {
            return nil
        }
        var tasks = ByteKeyIndex(capacity: taskCount)
        var stats = ByteKeyIndex(capacity: statCount)
        var taskOffsets: [UInt32] = []
        taskOffsets.reserveCapacity(taskCount)
        var statLocations: [UInt64] = []
        statLocations.reserveCapacity(statCount)

        func digestIndex() -> Bool { reader.varint().map { $0 < UInt64(digestCount) } ?? false }
        // `directory`: where the task's directory string starts (its length) and its bytes.
        func files(directory: (offset: Int, bytes: Range<Int>)) -> Bool {
            guard let count = reader.count() else { return false }
            for _ in 0..<count {
                let offset = reader.index
                guard let path = reader.stringRange(), digestIndex(), let statLength = reader.byte(),
                      reader.skip(Int(statLength)) else { return false }
                if statLength == 0 { continue }
                guard stats.count < statCount else { return false }
                let hash = Self.hash(directory: bytes[directory.bytes], path: bytes[path])
                stats.insert(hash: hash, value: UInt64(statLocations.count))
                statLocations.append(UInt64(directory.offset + 1) << 32 | UInt64(offset))  // `+ 1`: 0 is "loose"
            }
            return true
        }

        for _ in 0..<taskCount {
            let offset = reader.index
            guard let name = reader.stringRange(), let length = reader.count(), let kind = reader.byte() else {
                return nil
            }
            let end = reader.index - 1 + length
            tasks.insert(hash: ByteKeyHash.of(UnsafeRawBufferPointer(rebasing: bytes[name])), value: UInt64(taskOffsets.count))
            taskOffsets.append(UInt32(offset))
            switch Kind(rawValue: kind) {
            case .succeeded?:
                let directoryOffset = reader.index
                guard let range = reader.stringRange(), digestIndex(), digestIndex(), digestIndex(), digestIndex()
                else { return nil }
                let directory = (offset: directoryOffset, bytes: range)
                // Outputs and sources; the prerequisites' outputs after them hold no stats.
                guard files(directory: directory), files(directory: directory), reader.index <= end,
                      reader.skip(end - reader.index) else { return nil }
            case .unfinished?:
                guard reader.index == end else { return nil }
            case nil: return nil
            }
        }
        guard let looseCount = reader.count() else { return nil }
        for _ in 0..<looseCount {
            let offset = reader.index
            guard let key = reader.stringRange(), stats.count < statCount, let statLength = reader.byte(),
                  statLength > 0, reader.skip(Int(statLength)) else { return nil }
            stats.insert(hash: ByteKeyHash.of(UnsafeRawBufferPointer(rebasing: bytes[key])), value: UInt64(statLocations.count))
            statLocations.append(UInt64(offset))
        }
        guard reader.isAtEnd else { return nil }
        self.bytes = bytes
        self.digestStart = digestStart
        self.digestCount = digestCount
        self.tasks = tasks
        self.stats = stats
        self.taskOffsets = taskOffsets
        self.statLocations = statLocations
    }

    /// The hash of the key `directory` joined with `path` (as `FileSystem.join` joins them).
    private static func hash(directory: Slice<UnsafeRawBufferPointer>, path: Slice<UnsafeRawBufferPointer>) -> UInt64 {
        var hash = ByteKeyHash()
        hash.add(UnsafeRawBufferPointer(rebasing: directory))
        if let last = directory.last, last != UInt8(ascii: "/") { hash.add(byte: UInt8(ascii: "/")) }
        hash.add(UnsafeRawBufferPointer(rebasing: path))
        return hash.value
    }

    // MARK: - Looking up

    /// The task named `name`, decoded now.
    mutating func task(named name: String) -> StoredTask? {
        var name = name
        let found: Int? = name.withUTF8 { query in
            let key = UnsafeRawBufferPointer(query)
            func matches(_ position: Int) -> Bool {
                var reader = ByteReader(bytes, at: Int(taskOffsets[position]))
                return reader.stringRange().map { Self.equal(key, bytes[$0]) } ?? false
            }
            if nextTask < taskOffsets.count, matches(nextTask) { return nextTask }
            return tasks.first(hash: ByteKeyHash.of(key)) { matches(Int($0)) }.map { Int($0) }
        }
        guard let found else { return nil }
        nextTask = found + 1
        return decodeTask(at: Int(taskOffsets[found]))?.task
    }

    /// The stat cache entry of the file with key `key` (bytes of `StatePathKeys.keyRange`).
    mutating func statEntry(key: UnsafeRawBufferPointer) -> StatCacheEntry? {
        statPosition(key: key).flatMap { decodeStat(statLocations[$0]) }
    }

    /// How many files have a stat entry.
    var statCount: Int { statLocations.count }

    /// Where the stat entry of the file with key `key` is among them (`statKeys()`'s order).
    mutating func statPosition(key: UnsafeRawBufferPointer) -> Int? {
        let found: Int
        // A run asks in about the order entries were written, and for a file's stat just before
        // its entry (`StateStore.prefetchedStatus`): the next position, then the last one found.
        if nextStat < statLocations.count, matches(key, at: statLocations[nextStat]) {
            found = nextStat
        } else if nextStat > 0, matches(key, at: statLocations[nextStat - 1]) {
            found = nextStat - 1
        } else if let position = stats.first(hash: ByteKeyHash.of(key), where: { matches(key, at: statLocations[Int($0)]) }) {
            found = Int(position)
        } else {
            return nil
        }
        nextStat = found + 1
        return found
    }

    /// Every file key with a stat entry, by position.
    func statKeys() -> [String] {
        statLocations.map { location in key(at: location) ?? "" }
    }

    /// Whether the stat entry at `location` (see `statLocations`) is the one of the file with key `key`.
    private func matches(_ key: UnsafeRawBufferPointer, at location: UInt64) -> Bool {
        var reader = ByteReader(bytes, at: Int(location & 0xffff_ffff))
        guard let path = reader.stringRange() else { return false }
        let directoryField = Int(location >> 32)
        if directoryField == 0 { return Self.equal(key, bytes[path]) }
        var directoryReader = ByteReader(bytes, at: directoryField - 1)
        guard let directory = directoryReader.stringRange() else { return false }
        // `key` is `directory/path` (`directory` alone when it ends with "/", `path` alone when empty).
        let separator = directory.isEmpty || bytes[directory.upperBound - 1] == UInt8(ascii: "/") ? 0 : 1
        let pathStart = directory.count + separator
        guard key.count == pathStart + path.count else { return false }
        return Self.equal(UnsafeRawBufferPointer(rebasing: key[..<directory.count]), bytes[directory])
            && (separator == 0 || key[directory.count] == UInt8(ascii: "/"))
            && Self.equal(UnsafeRawBufferPointer(rebasing: key[pathStart...]), bytes[path])
    }

    private static func equal(_ a: UnsafeRawBufferPointer, _ b: Slice<UnsafeRawBufferPointer>) -> Bool {
        a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.base.baseAddress! + b.startIndex, a.count) == 0)
    }

    /// Every task, decoded (for compaction).
    func allTasks() -> [String: StoredTask] {
        var result: [String: StoredTask] = [:]
        result.reserveCapacity(taskOffsets.count)
        for offset in taskOffsets {
            if let (name, task) = decodeTask(at: Int(offset)) { result[name] = task }
        }
        return result
    }

    /// Every stat cache entry by file key (for compaction).
    func allStats() -> [String: StatCacheEntry] {
        var result: [String: StatCacheEntry] = [:]
        result.reserveCapacity(statLocations.count)
        for value in statLocations {
            guard let key = key(at: value), let entry = decodeStat(value) else { continue }
            result[key] = entry
        }
        return result
    }

    /// The file key of the stat entry at `location` (see `statLocations`).
    private func key(at location: UInt64) -> String? {
        var reader = ByteReader(bytes, at: Int(location & 0xffff_ffff))
        guard let path = reader.string() else { return nil }
        let directoryField = Int(location >> 32)
        guard directoryField != 0 else { return path }
        var directoryReader = ByteReader(bytes, at: directoryField - 1)
        let directory = directoryReader.string() ?? ""
        return directory.isEmpty ? path : FileSystem.join(directory, path)
    }

    // MARK: - Decoding

    private func digest(at index: Int) -> ContentDigest {
        let start = digestStart + 32 * index
        func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start + offset, as: UInt64.self))
        }
        return ContentDigest(w0: word(0), w1: word(8), w2: word(16), w3: word(24))
    }

    /// Reads a digest index; bounds were checked at open, and are again here.
    private func digest(_ reader: inout ByteReader) -> ContentDigest? {
        guard let index = reader.varint(), index < UInt64(digestCount) else { return nil }
        return digest(at: Int(index))
    }

    private func decodeStat(_ value: UInt64) -> StatCacheEntry? {
        var reader = ByteReader(bytes, at: Int(value & 0xffff_ffff))
        guard reader.stringRange() != nil else { return nil }
        // Embedded in a record: skip the file's own digest.
        if value >> 32 != 0, reader.varint() == nil { return nil }
        guard let length = reader.byte() else { return nil }
        let end = reader.index + Int(length)
        guard let status = reader.status(), let digest = digest(&reader), reader.index == end else { return nil }
        return StatCacheEntry(status: status, digest: digest, isTrusted: true)
    }

    private func decodeTask(at offset: Int) -> (name: String, task: StoredTask)? {
        var reader = ByteReader(bytes, at: offset)
        guard let name = reader.string(), let length = reader.count() else { return nil }
        let end = reader.index + length
        guard let kind = reader.byte().flatMap(Kind.init(rawValue:)) else { return nil }
        if kind == .unfinished { return (name, StoredTask(entry: .unfinished, directory: "")) }
        guard let directory = reader.string(), let whole = digest(&reader), let commands = digest(&reader),
              let environment = digest(&reader), let directoryDigest = digest(&reader),
              let outputs = files(&reader), let sources = files(&reader), let count = reader.count() else { return nil }
        var prerequisites: [PrerequisiteOutputs] = []
        prerequisites.reserveCapacity(count)
        for _ in 0..<count {
            guard let task = reader.string(), let outputs = files(&reader) else { return nil }
            prerequisites.append(PrerequisiteOutputs(task: task, outputs: outputs))
        }
        // A depfile's inputs follow, for a task with one (a snapshot of an older opsrun has none).
        var depfile: DepfileRecord?
        if reader.index < end {
            guard let read = reader.depfile(in: sources) else { return nil }
            depfile = read
        }
        let fingerprint = Fingerprint(whole: whole, commands: commands, environment: environment, directory: directoryDigest)
        let record = TaskRecord(
            fingerprint: fingerprint, sources: sources, prerequisiteOutputs: prerequisites, outputs: outputs, depfile: depfile)
        return (name, StoredTask(entry: .succeeded(record), directory: directory))
    }

    private func files(_ reader: inout ByteReader) -> [FileDigest]? {
        guard let count = reader.count() else { return nil }
        var files: [FileDigest] = []
        files.reserveCapacity(count)
        for _ in 0..<count {
            guard let path = reader.string(), let digest = digest(&reader), let statLength = reader.byte(),
                  reader.skip(Int(statLength)) else { return nil }
            files.append(FileDigest(path: path, digest: digest))
        }
        return files
    }
}
