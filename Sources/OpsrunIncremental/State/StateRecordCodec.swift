import OpsrunCore
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
            // Last, and only for a task with a depfile: records without one are as they were.
            if let depfile = record.depfile { writer.depfile(depfile, in: record.sources) }
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
            var depfile: DepfileRecord?
            if !reader.isAtEnd {
                guard let read = reader.depfile(in: sources) else { return nil }
                depfile = read
            }
            let fingerprint = Fingerprint(whole: whole, commands: commands, environment: environment, directory: directoryDigest)
            self = .succeeded(task: task, directory: directory, record: TaskRecord(
                fingerprint: fingerprint, sources: sources, prerequisiteOutputs: prerequisites, outputs: outputs,
                depfile: depfile))
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

/// The state's own values in the byte coding: digests, stats and file lists.
extension ByteWriter {
    mutating func digest(_ digest: ContentDigest) {
        uint64(digest.w0)
        uint64(digest.w1)
        uint64(digest.w2)
        uint64(digest.w3)
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

extension ByteReader {
    mutating func status() -> FileStatus? {
        guard let kind = byte().flatMap(FileStatus.Kind.init(rawValue:)), let size = varint(),
              let modified = varint(), let zigzag = varint(), let inode = varint() else { return nil }
        let delta = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        return FileStatus(
            kind: kind, size: Int64(bitPattern: size), modificationNanoseconds: Int64(bitPattern: modified),
            changeNanoseconds: Int64(bitPattern: modified) &+ delta, inode: inode)
    }

    mutating func digest() -> ContentDigest? {
        guard remaining >= 32, let w0 = uint64(), let w1 = uint64(), let w2 = uint64(), let w3 = uint64() else {
            return nil
        }
        return ContentDigest(w0: w0, w1: w1, w2: w2, w3: w3)
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
