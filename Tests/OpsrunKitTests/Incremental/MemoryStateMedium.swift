@testable import OpsrunIncremental

/// The state's file and lock in memory, for the tests of the up-to-date rules: one object lives
/// across the runs of a test, as `.opsrun/state` does across real runs.
final class MemoryStateMedium: StateMedium {
    private(set) var bytes: [UInt8]?
    private var appendable = false
    private(set) var holdsLock = false
    /// How many appends were asked to be durable (each a `fdatasync` on disk).
    private(set) var durableAppends = 0

    func prepare(creating: Bool) -> Bool { true }

    func lock() -> StateLock {
        holdsLock = true
        return .taken
    }

    func unlock() { holdsLock = false }

    func readAll() -> StateRead {
        guard let bytes else { return .missing }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        return .read(buffer, length: bytes.count)
    }

    func openForAppending(keeping length: Int) -> Bool {
        guard var kept = bytes else { return false }
        kept.removeSubrange(min(length, kept.count)...)
        bytes = kept
        appendable = true
        return true
    }

    func append(_ more: [UInt8], durable: Bool) -> Bool {
        guard appendable else { return false }
        bytes! += more
        if durable { durableAppends += 1 }
        return true
    }

    func closeAppending() { appendable = false }

    var isOpenForAppending: Bool { appendable }

    func replace(with new: [UInt8]) -> Bool {
        bytes = new
        return true
    }

    func remove() { bytes = nil }

    var lastErrorText: String { "memory" }
}
