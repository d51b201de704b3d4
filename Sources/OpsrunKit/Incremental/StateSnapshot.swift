// The snapshot: every live task record and stat cache entry, written whole by compaction and read
// lazily. A no-op run over 10,000 tasks asks about every task and every file once, and decoding all
// of it into dictionaries of strings up front cost more than the rest of the run's bookkeeping. So
// opening only walks the bytes once (checking every bound and index, making no strings) and indexes
// where each task and each stat entry is (`ByteKeyIndex`); a task's record is decoded when asked for.
//
// Layout of the payload (varints are LEB128; a string is a varint length and UTF-8 bytes):
//   varint digestCount, then digestCount × 32 bytes    each distinct digest once
//   varint taskCount, varint statCount                 statCount: embedded and loose stat entries
//   taskCount × task:  string name, varint bodyLength, body
//     body: byte 2 (unfinished)
//         | byte 1 (succeeded), string directory key, 4 × digest index (whole, commands,
//           environment, directory), files (sources), varint n, n × (string task, files), files (outputs)
//     files: varint count, count × (string path, digest index, byte 0 | byte 1 and a stat)
//   varint looseCount, looseCount × (string file key, stat)
//   stat: byte kind, varint size, mtime, ctime, inode, digest index
// A file's stat is kept in the record of the task that names it (its key is the task's directory
// key joined with the path, see `StatePathKeys.embeddedKey`), each file's once; stats of files no
// record names this way are "loose". Only trusted stat entries are ever stored.

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
    /// Task name → offset of the name.
    private let tasks: ByteKeyIndex
    /// File key → (offset of the directory string + 1, or 0 for a loose entry) << 32 | offset of the path.
    private let stats: ByteKeyIndex

    var taskCount: Int { tasks.count }

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

        func digestIndex() -> Bool { reader.varint().map { $0 < UInt64(digestCount) } ?? false }
        func stat() -> Bool { reader.status() != nil && digestIndex() }
        // `directory`: where the task's directory string starts (its length) and its bytes.
        func files(directory: (offset: Int, bytes: Range<Int>)?) -> Bool {
            guard let count = reader.count() else { return false }
            for _ in 0..<count {
                let offset = reader.index
                guard let path = reader.stringRange(), digestIndex(), let hasStat = reader.byte(), hasStat <= 1 else {
                    return false
                }
                if hasStat == 0 { continue }
                guard let directory, stats.count < statCount, stat() else { return false }
                let hash = Self.hash(directory: bytes[directory.bytes], path: bytes[path])
                // `+ 1` keeps 0 for "loose".
                stats.insert(hash: hash, value: UInt64(directory.offset + 1) << 32 | UInt64(offset))
            }
            return true
        }

        for _ in 0..<taskCount {
            let offset = reader.index
            guard let name = reader.stringRange(), let length = reader.count(), let kind = reader.byte() else {
                return nil
            }
            let end = reader.index - 1 + length
            tasks.insert(hash: ByteKeyHash.of(UnsafeRawBufferPointer(rebasing: bytes[name])), value: UInt64(offset))
            switch Kind(rawValue: kind) {
            case .succeeded?:
                let directoryOffset = reader.index
                guard let range = reader.stringRange(), digestIndex(), digestIndex(), digestIndex(), digestIndex()
                else { return nil }
                let directory = (offset: directoryOffset, bytes: range)
                guard files(directory: directory), let prerequisites = reader.count() else { return nil }
                for _ in 0..<prerequisites {
                    guard reader.stringRange() != nil, files(directory: nil) else { return nil }
                }
                guard files(directory: directory) else { return nil }
            case .unfinished?: break
            case nil: return nil
            }
            guard reader.index == end else { return nil }
        }
        guard let looseCount = reader.count() else { return nil }
        for _ in 0..<looseCount {
            let offset = reader.index
            guard let key = reader.stringRange(), stats.count < statCount, stat() else { return nil }
            stats.insert(hash: ByteKeyHash.of(UnsafeRawBufferPointer(rebasing: bytes[key])), value: UInt64(offset))
        }
        guard reader.isAtEnd else { return nil }
        self.bytes = bytes
        self.digestStart = digestStart
        self.digestCount = digestCount
        self.tasks = tasks
        self.stats = stats
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
    func task(named name: String) -> StoredTask? {
        var name = name
        return name.withUTF8 { query in
            let key = UnsafeRawBufferPointer(query)
            let found = tasks.first(hash: ByteKeyHash.of(key)) { offset in
                var reader = ByteReader(bytes, at: Int(offset))
                return reader.stringRange().map { bytes[$0].elementsEqual(key) } ?? false
            }
            return found.flatMap { decodeTask(at: Int($0))?.task }
        }
    }

    /// The stat cache entry of the file with key `key` (bytes of `StatePathKeys.keyRange`).
    func statEntry(key: UnsafeRawBufferPointer) -> StatCacheEntry? {
        let hash = ByteKeyHash.of(key)
        let found = stats.first(hash: hash) { value in
            var reader = ByteReader(bytes, at: Int(value & 0xffff_ffff))
            guard let path = reader.stringRange() else { return false }
            let directoryField = Int(value >> 32)
            if directoryField == 0 { return bytes[path].elementsEqual(key) }
            var directoryReader = ByteReader(bytes, at: directoryField - 1)
            guard let directory = directoryReader.stringRange() else { return false }
            return Self.joined(directory: bytes[directory], path: bytes[path], equals: key)
        }
        return found.flatMap(decodeStat(_:))
    }

    private static func joined(
        directory: Slice<UnsafeRawBufferPointer>, path: Slice<UnsafeRawBufferPointer>, equals key: UnsafeRawBufferPointer
    ) -> Bool {
        let separator = directory.last.map { $0 != UInt8(ascii: "/") } ?? false
        guard key.count == directory.count + (separator ? 1 : 0) + path.count else { return false }
        guard key.starts(with: directory) else { return false }
        if separator, key[directory.count] != UInt8(ascii: "/") { return false }
        return key[(key.count - path.count)...].elementsEqual(path)
    }

    /// Every task, decoded (for compaction).
    func allTasks() -> [String: StoredTask] {
        var result: [String: StoredTask] = [:]
        result.reserveCapacity(tasks.count)
        for offset in tasks.allValues {
            if let (name, task) = decodeTask(at: Int(offset)) { result[name] = task }
        }
        return result
    }

    /// Every stat cache entry by file key (for compaction).
    func allStats() -> [String: StatCacheEntry] {
        var result: [String: StatCacheEntry] = [:]
        result.reserveCapacity(stats.count)
        for value in stats.allValues {
            var reader = ByteReader(bytes, at: Int(value & 0xffff_ffff))
            guard var key = reader.string(), let entry = decodeStat(value) else { continue }
            let directoryField = Int(value >> 32)
            if directoryField != 0 {
                var directoryReader = ByteReader(bytes, at: directoryField - 1)
                let directory = directoryReader.string() ?? ""
                key = directory.isEmpty ? key : FileSystem.join(directory, key)
            }
            result[key] = entry
        }
        return result
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
        if value >> 32 != 0 {
            // Embedded in a record: skip the file's own digest and the "has a stat" byte.
            guard digest(&reader) != nil, reader.byte() == 1 else { return nil }
        }
        guard let status = reader.status(), let digest = digest(&reader) else { return nil }
        return StatCacheEntry(status: status, digest: digest, isTrusted: true)
    }

    private func decodeTask(at offset: Int) -> (name: String, task: StoredTask)? {
        var reader = ByteReader(bytes, at: offset)
        guard let name = reader.string(), reader.count() != nil, let kind = reader.byte().flatMap(Kind.init(rawValue:)) else {
            return nil
        }
        if kind == .unfinished { return (name, StoredTask(entry: .unfinished, directory: "")) }
        guard let directory = reader.string(), let whole = digest(&reader), let commands = digest(&reader),
              let environment = digest(&reader), let directoryDigest = digest(&reader),
              let sources = files(&reader), let count = reader.count() else { return nil }
        var prerequisites: [PrerequisiteOutputs] = []
        prerequisites.reserveCapacity(count)
        for _ in 0..<count {
            guard let task = reader.string(), let outputs = files(&reader) else { return nil }
            prerequisites.append(PrerequisiteOutputs(task: task, outputs: outputs))
        }
        guard let outputs = files(&reader) else { return nil }
        let fingerprint = Fingerprint(whole: whole, commands: commands, environment: environment, directory: directoryDigest)
        let record = TaskRecord(fingerprint: fingerprint, sources: sources, prerequisiteOutputs: prerequisites, outputs: outputs)
        return (name, StoredTask(entry: .succeeded(record), directory: directory))
    }

    private func files(_ reader: inout ByteReader) -> [FileDigest]? {
        guard let count = reader.count() else { return nil }
        var files: [FileDigest] = []
        files.reserveCapacity(count)
        for _ in 0..<count {
            guard let path = reader.string(), let digest = digest(&reader), let hasStat = reader.byte() else { return nil }
            if hasStat == 1 {
                guard reader.status() != nil, reader.varint() != nil else { return nil }
            }
            files.append(FileDigest(path: path, digest: digest))
        }
        return files
    }
}
