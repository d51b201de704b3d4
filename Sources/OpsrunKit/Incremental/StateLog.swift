// The layout of `.opsrun/state`: an append-only log, ninja's `.ninja_log` made checkable.
//
//   header  "opsrun state\n" then the format version (UInt32, little-endian)
//   frame   payload length (UInt32 LE) | payload (a StateRecord) | first 8 bytes of SHA-256(length|payload)
//
// Appending one frame per event is cheap and never rewrites what is already there; a later frame for
// the same task or path replaces an earlier one. A write cut short by a crash leaves an incomplete or
// unverifiable last frame: that "torn tail" is dropped silently (it only loses the newest event, and
// the events are ordered so that losing one is always safe). Anything else that does not verify —
// a foreign file, a newer format, a bad frame with more data after it — is damage: reported once and
// the whole file ignored, which is safe because an empty state only makes tasks run.
import Crypto

enum StateLog {
    static let magic = Array("opsrun state\n".utf8)
    static let version: UInt32 = 1
    static let checksumLength = 8
    /// A length above this is not a record but damage (the largest real records are a few MiB).
    static let maximumPayloadLength = 1 << 28

    static var header: [UInt8] {
        var writer = ByteWriter(bytes: magic)
        writer.uint32(version)
        return writer.bytes
    }

    /// The frame holding `record`.
    static func frame(_ record: StateRecord) -> [UInt8] {
        let payload = record.encoded()
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(4 + payload.count + checksumLength)
        writer.uint32(UInt32(payload.count))
        writer.bytes.append(contentsOf: payload)
        let sum = checksum(writer.bytes[...])
        writer.bytes.append(contentsOf: sum)
        return writer.bytes
    }

    private static func checksum(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize().prefix(checksumLength))
    }

    /// Why a state file is ignored as a whole.
    enum Problem: Hashable {
        case foreign
        case newerVersion(UInt32)
        case damaged(offset: Int)
    }

    /// A state file read back.
    struct Contents {
        /// How many leading bytes are the header and verified frames; past it lies a torn tail.
        var validLength = 0
        /// Set when the whole file must be ignored (then no record was handed over).
        var problem: Problem?
    }

    /// Reads a state file, handing each verified record and the size of its frame to `each` in file
    /// order: a no-op run reads tens of thousands, so they are not gathered in an array first. When
    /// damage is found after some records were handed over, `problem` says to discard them.
    static func parse(_ bytes: UnsafeRawBufferPointer, each: (StateRecord, Int) -> Void) -> Contents {
        let header = self.header
        guard bytes.count >= header.count, bytes[..<magic.count].elementsEqual(magic) else {
            return Contents(problem: .foreign)
        }
        let version = word32(bytes, at: magic.count)
        if version != self.version {
            return Contents(problem: version > self.version ? .newerVersion(version) : .foreign)
        }
        var contents = Contents(validLength: header.count)
        var offset = header.count
        while offset + 4 <= bytes.count {  // else a torn length
            let length = Int(word32(bytes, at: offset))
            let end = offset + 4 + length + checksumLength
            let valid = length > 0 && length <= maximumPayloadLength && end <= bytes.count
                && checksumMatches(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
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

    /// The records of a state file, each with its frame size (for tests).
    static func parse(_ bytes: [UInt8]) -> (contents: Contents, records: [(record: StateRecord, frameSize: Int)]) {
        var records: [(record: StateRecord, frameSize: Int)] = []
        let contents = bytes.withUnsafeBytes { raw in parse(raw) { records.append(($0, $1)) } }
        return (contents, contents.problem == nil ? records : [])
    }

    /// Whether a frame's last `checksumLength` bytes are the checksum of what precedes them.
    private static func checksumMatches(_ frame: UnsafeRawBufferPointer) -> Bool {
        var hasher = SHA256()
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: frame[..<(frame.count - checksumLength)]))
        return hasher.finalize().withUnsafeBytes { sum in
            sum[..<checksumLength].elementsEqual(frame[(frame.count - checksumLength)...])
        }
    }

    private static func word32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
}
