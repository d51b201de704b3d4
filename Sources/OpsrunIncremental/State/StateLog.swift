// The layout of `.opsrun/state`: one checked snapshot, then an append-only log of events after it.
//
//   header    "opsrun state\n" then the format version (UInt32, little-endian)
//   snapshot  one frame holding every live record (StateSnapshot), written whole by compaction
//   events    one frame per event since (StateRecord): a task started or succeeded, a stat entry
//   frame     payload length (UInt32 LE) | payload | XXH64(length|payload) (UInt64 LE)
//
// The snapshot is one frame with one checksum, so opening checks one XXH64 over it rather than
// one per record. It is only ever written to a temporary file and renamed into place, so it is
// never torn: a snapshot that does not verify is damage. Appending one frame per event is cheap
// and never rewrites what is already there; a later event for the same task or file replaces what
// the snapshot or an earlier event said. A write cut short by a crash leaves an incomplete or
// unverifiable last event: that "torn tail" is dropped silently (it only loses the newest event,
// and the events are ordered so that losing one is always safe). Anything else that does not
// verify — a foreign file, a newer format, a bad frame with more data after it — is damage:
// reported once and the whole file ignored, which is safe because an empty state only makes tasks
// run. A file in format 1 (one frame per record, no snapshot) or 2 (SHA-256 checksums) is our own
// older format: it is ignored without a word and replaced by the next write.
import OpsrunCore

enum StateLog {
    static let magic = Array("opsrun state\n".utf8)
    static let version: UInt32 = 3
    static let checksumLength = 8
    /// An event longer than this is not an event but damage (the largest real ones are a few MiB).
    static let maximumPayloadLength = 1 << 28
    /// The snapshot's limit: `StateSnapshot` addresses its bytes with 32-bit offsets.
    static let maximumSnapshotLength = Int(Int32.max)

    static var header: [UInt8] {
        var writer = ByteWriter(bytes: magic)
        writer.uint32(version)
        return writer.bytes
    }

    /// The frame holding `record`.
    static func frame(_ record: StateRecord) -> [UInt8] { frame(payload: record.encoded()) }

    /// The frame holding `payload`.
    static func frame(payload: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(4 + payload.count + checksumLength)
        writer.uint32(UInt32(payload.count))
        writer.bytes.append(contentsOf: payload)
        let sum = checksum(writer.bytes[...])
        writer.bytes.append(contentsOf: sum)
        return writer.bytes
    }

    /// A whole state file: the header, the snapshot and no events.
    static func file(snapshot payload: [UInt8]) -> [UInt8] { header + frame(payload: payload) }

    private static func checksum(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        let sum = bytes.withUnsafeBytes { XXHash64.hash($0) }
        return (0..<checksumLength).map { UInt8(truncatingIfNeeded: sum >> UInt64(8 * $0)) }
    }

    /// Why a state file is ignored as a whole.
    enum Problem: Hashable {
        case foreign
        case newerVersion(UInt32)
        case damaged(offset: Int)
    }

    /// A state file read back.
    struct Contents {
        /// Where the snapshot's payload is; `nil` for an older format or a problem.
        var snapshot: Range<Int>?
        /// How many leading bytes are the header, the snapshot and verified events; past it lies a torn tail.
        var validLength = 0
        /// Set when the whole file must be ignored (then no record was handed over).
        var problem: Problem?
        /// The file is in an older format of ours: ignored silently, replaced by the next write.
        var isOlderFormat = false
    }

    /// Reads a state file: finds and verifies the snapshot (decoding it is StateSnapshot's work),
    /// then hands each verified event after it and the size of its frame to `each`, in file order.
    /// When damage is found after some events were handed over, `problem` says to discard them.
    static func parse(_ bytes: UnsafeRawBufferPointer, each: (StateRecord, Int) -> Void) -> Contents {
        let header = self.header
        guard bytes.count >= header.count, bytes[..<magic.count].elementsEqual(magic) else {
            return Contents(problem: .foreign)
        }
        let version = word32(bytes, at: magic.count)
        if version < self.version { return Contents(isOlderFormat: true) }
        if version != self.version {
            return Contents(problem: version > self.version ? .newerVersion(version) : .foreign)
        }
        var offset = header.count
        guard let snapshotEnd = verifiedFrameEnd(bytes, at: offset, maximumLength: maximumSnapshotLength) else {
            return Contents(problem: .damaged(offset: offset))
        }
        var contents = Contents(snapshot: (offset + 4)..<(snapshotEnd - checksumLength), validLength: snapshotEnd)
        offset = snapshotEnd
        while offset + 4 <= bytes.count {  // else a torn length
            let length = Int(word32(bytes, at: offset))
            let end = offset + 4 + length + checksumLength
            let valid = verifiedFrameEnd(bytes, at: offset, maximumLength: maximumPayloadLength) != nil
            let record = valid ? StateRecord(decoding: UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 4 + length)])) : nil
            guard let record else {
                // A write cut short keeps its (first-written) length whole and lacks bytes at the end,
                // or, after a power loss, ends exactly at the end of the file with the wrong bytes.
                // An impossible length, or a bad frame with more data after it, is damage.
                let impossible = length == 0 || length > maximumPayloadLength
                if !impossible && end >= bytes.count { break }
                return Contents(problem: .damaged(offset: offset))
            }
            each(record, end - offset)
            offset = end
            contents.validLength = offset
        }
        return contents
    }

    /// The end of the frame at `offset` if it is whole, of a possible length, and its checksum matches.
    private static func verifiedFrameEnd(_ bytes: UnsafeRawBufferPointer, at offset: Int, maximumLength: Int) -> Int? {
        guard offset + 4 <= bytes.count else { return nil }
        let length = Int(word32(bytes, at: offset))
        let end = offset + 4 + length + checksumLength
        guard length > 0, length <= maximumLength, end <= bytes.count,
              checksumMatches(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) else { return nil }
        return end
    }

    /// The events of a state file after its snapshot, each with its frame size (for tests).
    static func parse(_ bytes: [UInt8]) -> (contents: Contents, records: [(record: StateRecord, frameSize: Int)]) {
        var records: [(record: StateRecord, frameSize: Int)] = []
        let contents = bytes.withUnsafeBytes { raw in parse(raw) { records.append(($0, $1)) } }
        return (contents, contents.problem == nil ? records : [])
    }

    /// Whether a frame's last `checksumLength` bytes are the checksum of what precedes them.
    private static func checksumMatches(_ frame: UnsafeRawBufferPointer) -> Bool {
        let sum = XXHash64.hash(UnsafeRawBufferPointer(rebasing: frame[..<(frame.count - checksumLength)]))
        return UInt64(littleEndian: frame.loadUnaligned(fromByteOffset: frame.count - checksumLength, as: UInt64.self)) == sum
    }

    private static func word32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
}
