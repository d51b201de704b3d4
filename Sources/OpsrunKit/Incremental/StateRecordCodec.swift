// The events appended to the state after its snapshot are a small binary encoding (varint lengths,
// raw 32-byte digests) rather than JSON, like the snapshot itself (StateSnapshot). Each event is
// self-contained — no shared digest table — since it is written alone, the moment it happens.
// Decoding checks every bound and fails with `nil` — a record that passed its checksum but cannot be
// decoded is treated like damage.

/// One event appended to the state.
enum StateRecord: Hashable, Sendable {
    /// The task, run in the directory with key `directory` (`StatePathKeys`), succeeded and left this record.
    case succeeded(task: String, directory: String, record: TaskRecord)
    /// The task is about to run; its earlier record no longer holds.
    case started(task: String)
    /// A trusted stat cache entry for the file with this key (`StatePathKeys`).
    case stat(key: String, entry: StatCacheEntry)

    private enum Kind: UInt8 {
        case succeeded = 1, started = 2, stat = 3
    }

    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .succeeded(let task, let directory, let record):
            writer.byte(Kind.succeeded.rawValue)
            writer.string(task)
            writer.string(directory)
            for digest in [record.fingerprint.whole, record.fingerprint.commands,
                           record.fingerprint.environment, record.fingerprint.directory] {
                writer.digest(digest)
            }
            writer.files(record.sources)
            writer.varint(UInt64(record.prerequisiteOutputs.count))
            for prerequisite in record.prerequisiteOutputs {
                writer.string(prerequisite.task)
                writer.files(prerequisite.outputs)
            }
            writer.files(record.outputs)
        case .started(let task):
            writer.byte(Kind.started.rawValue)
            writer.string(task)
        case .stat(let key, let entry):
            writer.byte(Kind.stat.rawValue)
            writer.string(key)
            writer.status(entry.status)
            writer.digest(entry.digest)
            writer.byte(entry.isTrusted ? 1 : 0)
        }
        return writer.bytes
    }

    init?(decoding bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        guard let kind = reader.byte().flatMap(Kind.init(rawValue:)) else { return nil }
        switch kind {
        case .succeeded:
            guard let task = reader.string(), let directory = reader.string(), let whole = reader.digest(),
                  let commands = reader.digest(), let environment = reader.digest(), let directoryDigest = reader.digest(),
                  let sources = reader.files(), let count = reader.count() else { return nil }
            var prerequisites: [PrerequisiteOutputs] = []
            for _ in 0..<count {
                guard let name = reader.string(), let outputs = reader.files() else { return nil }
                prerequisites.append(PrerequisiteOutputs(task: name, outputs: outputs))
            }
            guard let outputs = reader.files() else { return nil }
            let fingerprint = Fingerprint(whole: whole, commands: commands, environment: environment, directory: directoryDigest)
            self = .succeeded(task: task, directory: directory, record: TaskRecord(
                fingerprint: fingerprint, sources: sources, prerequisiteOutputs: prerequisites, outputs: outputs))
        case .started:
            guard let task = reader.string() else { return nil }
            self = .started(task: task)
        case .stat:
            guard let key = reader.string(), let status = reader.status(), let digest = reader.digest(),
                  let trusted = reader.byte()
            else { return nil }
            self = .stat(key: key, entry: StatCacheEntry(status: status, digest: digest, isTrusted: trusted == 1))
        }
        guard reader.isAtEnd else { return nil }
    }
}

/// Appends little-endian integers, LEB128 varints, length-prefixed strings and digests.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func uint32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func string(_ text: String) {
        varint(UInt64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    mutating func digest(_ digest: ContentDigest) {
        uint64(digest.w0)
        uint64(digest.w1)
        uint64(digest.w2)
        uint64(digest.w3)
    }

    mutating func uint64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A file's stat: kind, then size, mtime, ctime and inode as varints. The ctime is written as
    /// its (zigzag) difference from the mtime, usually zero or small: 1 to 5 bytes instead of 9.
    mutating func status(_ status: FileStatus) {
        byte(status.kind.rawValue)
        varint(UInt64(bitPattern: status.size))
        varint(UInt64(bitPattern: status.modificationNanoseconds))
        let delta = status.changeNanoseconds &- status.modificationNanoseconds
        varint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)))
        varint(status.inode)
    }

    mutating func files(_ files: [FileDigest]) {
        varint(UInt64(files.count))
        for file in files {
            string(file.path)
            digest(file.digest)
        }
    }
}

/// Reads what `ByteWriter` wrote; every read returns `nil` rather than run past the end.
struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    /// Where the next read starts.
    private(set) var index = 0

    /// Valid only while `bytes` is; reading starts at `index`.
    init(_ bytes: UnsafeRawBufferPointer, at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    var isAtEnd: Bool { index == bytes.count }

    mutating func byte() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = byte() {
            guard shift < 64 else { return nil }
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }

    /// A count of items that each take at least one byte: never more than the bytes left.
    mutating func count() -> Int? {
        guard let value = varint(), value <= UInt64(bytes.count - index) else { return nil }
        return Int(value)
    }

    mutating func string() -> String? {
        guard let range = stringRange() else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Where a length-prefixed string's bytes are, without making the string.
    mutating func stringRange() -> Range<Int>? {
        guard let length = count() else { return nil }
        defer { index += length }
        return index..<index + length
    }

    /// Skips `count` bytes, if there are that many.
    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= bytes.count - index else { return false }
        index += count
        return true
    }

    mutating func status() -> FileStatus? {
        guard let kind = byte().flatMap(FileStatus.Kind.init(rawValue:)), let size = varint(),
              let modified = varint(), let zigzag = varint(), let inode = varint() else { return nil }
        let delta = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        return FileStatus(
            kind: kind, size: Int64(bitPattern: size), modificationNanoseconds: Int64(bitPattern: modified),
            changeNanoseconds: Int64(bitPattern: modified) &+ delta, inode: inode)
    }

    mutating func digest() -> ContentDigest? {
        guard bytes.count - index >= 32 else { return nil }
        defer { index += 32 }
        return ContentDigest(w0: word(at: index), w1: word(at: index + 8), w2: word(at: index + 16), w3: word(at: index + 24))
    }

    private func word(at start: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self))
    }

    mutating func files() -> [FileDigest]? {
        guard let count = count() else { return nil }
        var files: [FileDigest] = []
        files.reserveCapacity(count)
        for _ in 0..<count {
            guard let path = string(), let digest = digest() else { return nil }
            files.append(FileDigest(path: path, digest: digest))
        }
        return files
    }
}
