import OpsrunCore
// Writes the snapshot payload described in StateSnapshot. Deterministic (tasks and loose entries in
// byte order of their names, digests numbered in order of first use), so the same state always makes
// the same bytes. Runs only at compaction, so it favours simplicity over speed.

/// Encodes every live task and stat cache entry as one snapshot payload.
enum StateSnapshotWriter {
    /// - Parameters:
    ///   - tasks: every task's entry and directory key.
    ///   - stats: trusted stat cache entries by file key (`StatePathKeys`); untrusted ones are dropped.
    static func payload(tasks: [String: StoredTask], stats: [String: StatCacheEntry], keys: StatePathKeys) -> [UInt8] {
        var table = DigestTable()
        var remaining = stats.filter { $0.value.isTrusted }
        let statCount = remaining.count

        var body = ByteWriter()
        var records = ByteWriter()
        for name in tasks.keys.sorted(by: TaskDefinitionInput.bytewise) {
            let task = tasks[name]!
            body.bytes.removeAll(keepingCapacity: true)
            switch task.entry {
            case .unfinished:
                body.byte(StateSnapshot.Kind.unfinished.rawValue)
            case .succeeded(let record):
                body.byte(StateSnapshot.Kind.succeeded.rawValue)
                body.string(task.directory)
                for digest in [record.fingerprint.whole, record.fingerprint.commands,
                               record.fingerprint.environment, record.fingerprint.directory] {
                    body.varint(table.index(of: digest))
                }
                // A file's stat goes with the first file entry whose key it is.
                let embed = { (path: String) -> StatCacheEntry? in
                    keys.embeddedKey(directory: task.directory, path: path).flatMap { remaining.removeValue(forKey: $0) }
                }
                files(record.outputs, to: &body, table: &table, stat: embed)
                files(record.sources, to: &body, table: &table, stat: embed)
                body.varint(UInt64(record.prerequisiteOutputs.count))
                for prerequisite in record.prerequisiteOutputs {
                    body.string(prerequisite.task)
                    files(prerequisite.outputs, to: &body, table: &table) { _ in nil }
                }
                if let depfile = record.depfile { body.depfile(depfile, in: record.sources) }
            }
            records.string(name)
            records.varint(UInt64(body.bytes.count))
            records.bytes.append(contentsOf: body.bytes)
        }

        var loose = ByteWriter()
        loose.varint(UInt64(remaining.count))
        for key in remaining.keys.sorted(by: TaskDefinitionInput.bytewise) {
            loose.string(key)
            stat(remaining[key]!, to: &loose, table: &table)
        }

        var payload = ByteWriter()
        payload.bytes.reserveCapacity(16 + 32 * table.digests.count + records.bytes.count + loose.bytes.count)
        payload.varint(UInt64(table.digests.count))
        for digest in table.digests { payload.digest(digest) }
        payload.varint(UInt64(tasks.count))
        payload.varint(UInt64(statCount))
        payload.bytes.append(contentsOf: records.bytes)
        payload.bytes.append(contentsOf: loose.bytes)
        return payload.bytes
    }

    private static func files(
        _ files: [FileDigest], to writer: inout ByteWriter, table: inout DigestTable, stat: (String) -> StatCacheEntry?
    ) {
        writer.varint(UInt64(files.count))
        for file in files {
            writer.string(file.path)
            writer.varint(table.index(of: file.digest))
            if let entry = stat(file.path) {
                self.stat(entry, to: &writer, table: &table)
            } else {
                writer.byte(0)
            }
        }
    }

    /// A stat with its length first (at most 1 + 4 × 10 + 10 bytes, so the length is one byte).
    private static func stat(_ entry: StatCacheEntry, to writer: inout ByteWriter, table: inout DigestTable) {
        var stat = ByteWriter()
        stat.status(entry.status)
        stat.varint(table.index(of: entry.digest))
        writer.byte(UInt8(stat.bytes.count))
        writer.bytes.append(contentsOf: stat.bytes)
    }
}

/// Each distinct digest once, numbered in order of first use: a file's digest and its stat entry's,
/// a prerequisite's outputs in every dependent's record, and the environment and directory digests
/// most tasks share are stored once rather than as 32 bytes each time.
private struct DigestTable {
    var digests: [ContentDigest] = []
    private var indices: [ContentDigest: UInt64] = [:]

    mutating func index(of digest: ContentDigest) -> UInt64 {
        if let index = indices[digest] { return index }
        let index = UInt64(digests.count)
        indices[digest] = index
        digests.append(digest)
        return index
    }
}
