// The state snapshot is indexed at open by the raw UTF-8 bytes of its keys (task names, file paths)
// rather than by `String`s in a `Dictionary`: making 30,000 strings and hashing them with Swift's
// seeded SipHash costs more than the rest of opening. Here a key is hashed with FNV-1a straight from
// the file's bytes, and the table holds only that hash and a 64-bit value the caller chose (where
// the key is in the snapshot); the caller confirms a candidate by comparing the bytes there.
// Keys may be made of several pieces (a task's directory, "/", a path): the hash is streamed.

/// An open-addressing hash table from byte-string hashes to values; keys live elsewhere.
struct ByteKeyIndex {
    /// Slots of `(hash, value)` side by side, so a probe touches one cache line; a value of
    /// `UInt64.max` marks an empty slot.
    private var slots: [(hash: UInt64, value: UInt64)]
    private let mask: Int
    private(set) var count = 0

    static let empty = UInt64.max

    /// Room for `capacity` keys at a load of at most one half, so probes stay short.
    init(capacity: Int) {
        var size = 8
        while size < 2 * capacity { size <<= 1 }
        slots = Array(repeating: (0, Self.empty), count: size)
        mask = size - 1
    }

    /// Adds `value` (anything but `UInt64.max`) under `hash`; keys are not checked for duplicates.
    mutating func insert(hash: UInt64, value: UInt64) {
        precondition(count < mask, "ByteKeyIndex is full")
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot].value != Self.empty { slot = (slot + 1) & mask }
        slots[slot] = (hash, value)
        count += 1
    }

    /// The first value under `hash` that `matches` (which compares the real key).
    @inline(__always)
    func first(hash: UInt64, where matches: (UInt64) -> Bool) -> UInt64? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let (slotHash, value) = slots[slot]
            if value == Self.empty { return nil }
            if slotHash == hash, matches(value) { return value }
            slot = (slot + 1) & mask
        }
    }
}

/// FNV-1a over bytes given in one or more pieces: `"src/" + "a.c"` hashes like `"src/a.c"`.
struct ByteKeyHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        value = hash
    }

    mutating func add(byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = ByteKeyHash()
        hash.add(bytes)
        return hash.value
    }
}
