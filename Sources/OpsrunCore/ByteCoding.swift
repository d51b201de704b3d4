// The binary coding every opsrun file shares (the state, its events, the manifest cache): bytes,
// little-endian words, LEB128 varints and varint-length strings. What a file stores on top of it
// (digests, stats, a manifest) is written in terms of these.

/// Appends bytes, little-endian integers, LEB128 varints and length-prefixed strings.
package struct ByteWriter {
    package var bytes: [UInt8] = []

    package init(bytes: [UInt8] = []) { self.bytes = bytes }

    package mutating func byte(_ value: UInt8) { bytes.append(value) }

    package mutating func uint32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func uint64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    package mutating func string(_ text: String) {
        varint(UInt64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }
}

/// Reads what `ByteWriter` wrote; every read returns `nil` rather than run past the end.
package struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    /// Where the next read starts.
    package private(set) var index = 0

    /// Valid only while `bytes` is; reading starts at `index`.
    package init(_ bytes: UnsafeRawBufferPointer, at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    package var isAtEnd: Bool { index == bytes.count }

    /// Bytes left to read.
    package var remaining: Int { bytes.count - index }

    package mutating func byte() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    package mutating func uint64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        defer { index += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
    }

    package mutating func varint() -> UInt64? {
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
    package mutating func count() -> Int? {
        guard let value = varint(), value <= UInt64(remaining) else { return nil }
        return Int(value)
    }

    package mutating func string() -> String? {
        guard let range = stringRange() else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Where a length-prefixed string's bytes are, without making the string.
    package mutating func stringRange() -> Range<Int>? {
        guard let length = count() else { return nil }
        defer { index += length }
        return index..<index + length
    }

    /// Skips `count` bytes, if there are that many.
    package mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        index += count
        return true
    }
}
