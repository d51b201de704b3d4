// How long each task's last successful run took, for the critical path (issue 15), as ninja keeps
// durations in `.ninja_log`. Every task that ran counts, not only those with sources, so this is a
// file of its own beside the state (`.opsrun/durations`), not part of the task records: a project
// that never declares `sources` has no state, and the state's crash-safety rules (a "started"
// record synced before a task runs) are not worth paying for a number that only orders the queue.
//
//   "opsrun durations\n", varint version, varint count, count × (string key, varint µs),
//   then the first 8 bytes of the SHA-256 of everything before
//
// Keys are the task records' (`StateRecordNames`), so the manifests of one directory keep apart.
// It is read only when the queue first needs an order (a no-op run never does) and written at the
// end of a run in which something ran, whole (a temporary file renamed over it). It is a heuristic:
// missing, damaged, foreign or unwritable, it is silently empty, and two runs writing it at once
// leave one's durations. Tasks of this manifest no longer in it are dropped when it is written.

import Crypto
import OpsrunCore

/// The last successful duration of each task, kept in `.opsrun/durations`.
public final class TaskDurations {
    public static let fileName = "durations"
    static let magic = Array("opsrun durations\n".utf8)
    static let version: UInt32 = 1

    private let stateDirectory: String
    private let recordNames: StateRecordNames
    /// The file's entries by key, read the first time they are asked for.
    private var entries: [String: UInt64]?
    /// This run's durations, by key, not yet written.
    private var recorded: [String: UInt64] = [:]

    /// The durations kept in `stateDirectory` (`<manifest directory>/.opsrun`) for the tasks of the
    /// manifest `recordNames` says; nothing is read yet.
    public init(stateDirectory: String, recordNames: StateRecordNames = .bare) {
        self.stateDirectory = stateDirectory
        self.recordNames = recordNames
    }

    private var path: String { FileSystem.join(stateDirectory, Self.fileName) }

    /// Microseconds the last successful run of `task` took, if one was recorded.
    public func microseconds(of task: String) -> UInt64? {
        let key = recordNames.key(of: task)
        if let duration = recorded[key] { return duration }
        if entries == nil { entries = Self.read(path) }
        return entries?[key]
    }

    /// A successful run of `task` took `microseconds`.
    public func record(_ task: String, microseconds: UInt64) {
        recorded[recordNames.key(of: task)] = microseconds
    }

    /// Writes the file if a duration was recorded, keeping other manifests' entries and this one's
    /// for the tasks named in `tasks` (all of the manifest's). Failing to write is silent.
    public func save(keeping tasks: @autoclosure () -> Set<String>) {
        guard !recorded.isEmpty else { return }
        let tasks = tasks()
        // Read again: another run may have written it since.
        var all = Self.read(path)
        all = all.filter { key, _ in recordNames.task(ofKey: key).map(tasks.contains) ?? true }
        all.merge(recorded) { _, new in new }
        guard StateDirectory.make(stateDirectory) else { return }
        AtomicFile.write(Self.encode(all), to: path)
        entries = all
        recorded = [:]
    }

    static func encode(_ entries: [String: UInt64]) -> [UInt8] {
        var writer = ByteWriter(bytes: magic)
        writer.varint(UInt64(version))
        writer.varint(UInt64(entries.count))
        for key in entries.keys.sorted(by: TaskDefinitionInput.bytewise) {
            writer.string(key)
            writer.varint(entries[key]!)
        }
        writer.bytes += checksum(writer.bytes)
        return writer.bytes
    }

    /// The entries of the file at `path`; empty when it is missing or not a valid durations file.
    static func read(_ path: String) -> [String: UInt64] {
        guard let bytes = FileText.readBytes(path) else { return [:] }
        return decode(bytes) ?? [:]
    }

    static func decode(_ bytes: [UInt8]) -> [String: UInt64]? {
        guard bytes.count >= magic.count + 8, bytes.starts(with: magic) else { return nil }
        let body = bytes.dropLast(8)
        guard checksum(body) == Array(bytes.suffix(8)) else { return nil }
        return body.withUnsafeBytes { raw -> [String: UInt64]? in
            var reader = ByteReader(raw, at: magic.count)
            guard reader.varint() == UInt64(version), let count = reader.count() else { return nil }
            var entries: [String: UInt64] = [:]
            entries.reserveCapacity(count)
            for _ in 0..<count {
                guard let key = reader.string(), let duration = reader.varint() else { return nil }
                entries[key] = duration
            }
            return reader.isAtEnd ? entries : nil
        }
    }

    private static func checksum<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(data: Array(bytes))
        return Array(hasher.finalize().prefix(8))
    }
}
