// SHA-256 for what content means (docs/manual/up-to-date.md): file contents, task fingerprints and
// cache keys use swift-crypto's SHA256, the maintained implementation. Only what this machine's
// own records compare with themselves (a task's commands) is checked with XXH64 (`finalizeFast`).
// A digest is kept inline as four words rather than as an array, so the tens of thousands of them a
// no-op run compares cost no allocation.
import Crypto
import OpsrunCore

/// A SHA-256 digest, held inline (no heap allocation), printed as lowercase hex.
public struct ContentDigest: Hashable, Sendable, CustomStringConvertible {
    // The 32 digest bytes in order, as four little-endian words.
    var w0, w1, w2, w3: UInt64

    init(w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64) {
        (self.w0, self.w1, self.w2, self.w3) = (w0, w1, w2, w3)
    }

    package init(_ digest: SHA256.Digest) {
        (w0, w1, w2, w3) = digest.withUnsafeBytes { raw in
            (
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            )
        }
    }

    /// The digest whose 32 bytes are `bytes` in order; `nil` for any other count.
    package init?<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        guard bytes.count == 32 else { return nil }
        var words: [UInt64] = [0, 0, 0, 0]
        for (offset, byte) in bytes.enumerated() { words[offset / 8] |= UInt64(byte) << (UInt64(offset % 8) * 8) }
        (w0, w1, w2, w3) = (words[0], words[1], words[2], words[3])
    }

    /// The SHA-256 of `bytes`.
    public static func of<Bytes: Sequence>(_ bytes: Bytes) -> ContentDigest where Bytes.Element == UInt8 {
        var hasher = SHA256()
        let array = Array(bytes)
        array.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return ContentDigest(hasher.finalize())
    }

    /// The SHA-256 of a string's UTF-8 bytes.
    public static func of(_ text: String) -> ContentDigest { of(Array(text.utf8)) }

    /// What a directory hashes to: it is compared by existence only, since other tasks commonly write
    /// into a declared output directory (`mkdir -p build`) and its contents are not its producer's.
    public static let directory = ContentDigest.of("opsrun: a directory")

    /// What a source that is neither a file nor a directory (a named pipe, a device, a socket)
    /// gets: nothing is read from it (a pipe would block, a device never end). Not the digest of
    /// any known bytes, so no file's content matches it.
    public static let notAFile = ContentDigest(w0: 0x6f70_7372_756e_0000, w1: 0, w2: 0, w3: 1)

    /// What a file a depfile listed is recorded with when it changed while the task ran (or in
    /// the clock tick it started in): what the command read is unknown, so no content matches
    /// it, and `--explain` can say why (docs/manual/up-to-date.md).
    public static let untrusted = ContentDigest(w0: 0x6f70_7372_756e_0000, w1: 0, w2: 0, w3: 2)

    /// The 32 bytes in order.
    public var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(32)
        for word in [w0, w1, w2, w3] {
            withUnsafeBytes(of: word.littleEndian) { result.append(contentsOf: $0) }
        }
        return result
    }

    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// Feeds values to SHA-256 in an unambiguous encoding: every string and list is length-prefixed, so
/// `["ab", "c"]` and `["a", "bc"]` can never hash alike. The encoding is gathered in a buffer and
/// hashed once: the values are small and many, and each call into SHA-256 has a fixed cost.
struct CanonicalHasher {
    private var bytes: [UInt8] = []

    init(domain: String) {
        bytes.reserveCapacity(256)
        add(domain)
    }

    mutating func add(_ number: UInt64) {
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func add(_ number: Int) { add(UInt64(bitPattern: Int64(number))) }

    mutating func add(_ text: String) {
        add(text.utf8.count)
        bytes.append(contentsOf: text.utf8)
    }

    mutating func add(_ digest: ContentDigest) {
        add(digest.w0)
        add(digest.w1)
        add(digest.w2)
        add(digest.w3)
    }

    /// The same bytes under four XXH64 seeds rather than SHA-256: for a digest that only tells a
    /// task's definition from its last run's on this machine (its commands, in its record), never
    /// one another machine or a cache key relies on. Measured: a settled 10,000-task no-op
    /// 567 M -> 518 M instructions (callgrind).
    func finalizeFast() -> ContentDigest {
        bytes.withUnsafeBytes { raw in
            ContentDigest(
                w0: XXHash64.hash(raw, seed: 0), w1: XXHash64.hash(raw, seed: 1), w2: XXHash64.hash(raw, seed: 2),
                w3: XXHash64.hash(raw, seed: 3))
        }
    }

    func finalize() -> ContentDigest {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return ContentDigest(hasher.finalize())
    }
}
