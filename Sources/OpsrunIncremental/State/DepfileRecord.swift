import OpsrunCore
// What a task's depfile said after its last success (docs/manual/depfiles.md), kept in the task's record so that a
// no-op run never reads a depfile again. The files it listed are among the record's `sources`, each
// with its digest, so `--explain` names the header that changed as it names any source; the record
// adds only which of the sources came from the depfile, so the next check knows which more files to
// hash. In both the log and the snapshot that is a short list of positions in the sorted sources
// (about one byte per file) after the fields a record always had: a record without it reads as
// before, and records without a depfile are byte for byte what they were (see docs/state-format.md).

/// The files a task's depfile listed after its last success, or why it listed none.
public struct DepfileRecord: Hashable, Sendable {
    /// Why the depfile told nothing that can be trusted: the task runs again next time.
    public enum Problem: UInt8, Hashable, Sendable {
        /// The task succeeded without writing it.
        case missing = 1
        /// It could not be read, or is not a Makefile-syntax dependency file.
        case malformed = 2
    }

    /// The files it listed, as written there (relative to the task's directory, or absolute), sorted
    /// bytewise; each is also in the record's `sources`.
    public var inputs: [String]
    public var problem: Problem?

    public init(inputs: [String], problem: Problem? = nil) {
        self.inputs = inputs
        self.problem = problem
    }
}

extension ByteWriter {
    /// `record` after the fields of a task record: the problem (0 for none), then each input as
    /// the distance from the previous one's position in `sources` (which holds every input).
    mutating func depfile(_ record: DepfileRecord, in sources: [FileDigest]) {
        byte(record.problem?.rawValue ?? 0)
        varint(UInt64(record.inputs.count))
        var position = 0
        var previous = -1
        for input in record.inputs {
            // Both are sorted by the same order: walk them side by side.
            while position < sources.count, sources[position].path != input { position += 1 }
            precondition(position < sources.count, "a depfile input is missing from its record's sources")
            varint(UInt64(position - previous - 1))
            previous = position
            position += 1
        }
    }
}

extension ByteReader {
    /// What `ByteWriter.depfile` wrote, with the paths taken from `sources`; `nil` when malformed.
    mutating func depfile(in sources: [FileDigest]) -> DepfileRecord? {
        guard let raw = byte(), let count = count() else { return nil }
        let problem = DepfileRecord.Problem(rawValue: raw)
        guard raw == 0 || problem != nil, count <= sources.count else { return nil }
        var inputs: [String] = []
        inputs.reserveCapacity(count)
        var position = -1
        for _ in 0..<count {
            guard let gap = varint(), gap < UInt64(sources.count) else { return nil }
            position += Int(gap) + 1
            guard position < sources.count else { return nil }
            inputs.append(sources[position].path)
        }
        return DepfileRecord(inputs: inputs, problem: problem)
    }
}
