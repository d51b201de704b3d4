// Where the state's bytes live. A run keeps them in `.opsrun/state` beside a lock file
// (`StateFiles`); the tests of the up-to-date rules keep them in memory, so that the rules are
// tested without touching the disk. `StateStore` decides what is written and when; a medium only
// reads, appends and replaces bytes, as it is told, with the durability it is asked for.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OpsrunCore

/// The state file and its lock, as `StateStore` uses them.
public protocol StateMedium: AnyObject {
    /// Whether the state's directory is there; with `creating`, made first if it is not.
    func prepare(creating: Bool) -> Bool
    /// Takes the lock that keeps two opsrun processes from interleaving writes.
    func lock() -> StateLock
    /// The whole file, in a buffer the caller owns from then on (and deallocates).
    func readAll() -> StateRead
    /// Opens the file for appending, cut to its first `length` bytes (a torn tail dropped);
    /// `false` when it cannot be.
    func openForAppending(keeping length: Int) -> Bool
    /// Appends to the file opened for appending; with `durable`, synced before it returns.
    func append(_ bytes: [UInt8], durable: Bool) -> Bool
    /// Closes the file opened for appending, if it is.
    func closeAppending()
    var isOpenForAppending: Bool { get }
    /// Replaces the whole file at once (the old or the new one, never a mix), durably.
    func replace(with bytes: [UInt8]) -> Bool
    /// Removes the file, durably: after a failed write, no state at all is the safe state.
    func remove()
    /// Releases the lock, if it is held.
    func unlock()
    var holdsLock: Bool { get }
    /// Why the last call failed, in words ("No space left on device").
    var lastErrorText: String { get }
}

public enum StateLock {
    case taken
    /// The lock cannot be made (a read-only project): nothing can be written either, and reading
    /// is still right.
    case unavailable
    case heldByAnotherProcess
}

public enum StateRead {
    case missing
    case failed(String)
    case read(UnsafeMutableRawBufferPointer, length: Int)
}

/// `.opsrun/state` and `.opsrun/lock` on disk.
public final class StateFiles: StateMedium {
    let directory: String
    private var path: String { FileSystem.join(directory, StateStore.fileName) }
    private var descriptor: Int32 = -1
    private var lockDescriptor: Int32 = -1

    public init(directory: String) {
        self.directory = directory
    }

    deinit {
        closeAppending()
        unlock()
    }

    public func prepare(creating: Bool) -> Bool {
        creating ? StateDirectory.make(directory) : FileSystem.status(directory)?.kind == .directory
    }

    public func lock() -> StateLock {
        if lockDescriptor >= 0 { return .taken }
        lockDescriptor = open(FileSystem.join(directory, "lock"), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockDescriptor >= 0 else { return .unavailable }
        if flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 { return .taken }
        closeDescriptor(lockDescriptor)
        lockDescriptor = -1
        return .heldByAnotherProcess
    }

    public var holdsLock: Bool { lockDescriptor >= 0 }

    public func unlock() {
        if lockDescriptor >= 0 { closeDescriptor(lockDescriptor) }
        lockDescriptor = -1
    }

    public func readAll() -> StateRead {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno == ENOENT ? .missing : .failed(lastErrorText) }
        defer { closeDescriptor(descriptor) }
        // One buffer of the file's size, read in place: the snapshot is decoded from it.
        var capacity = Int(FileSystem.status(descriptor: descriptor)?.size ?? 0) + 1
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        var length = 0
        while true {
            if length == capacity {
                let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * capacity, alignment: 16)
                larger.copyMemory(from: UnsafeRawBufferPointer(buffer))
                buffer.deallocate()
                buffer = larger
                capacity *= 2
            }
            let count = read(descriptor, buffer.baseAddress! + length, capacity - length)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                let problem = lastErrorText
                buffer.deallocate()
                return .failed(problem)
            }
            length += count
        }
        return .read(buffer, length: length)
    }

    public func openForAppending(keeping length: Int) -> Bool {
        if descriptor >= 0 { return true }
        descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        return descriptor >= 0 && ftruncate(descriptor, off_t(length)) == 0
    }

    public func append(_ bytes: [UInt8], durable: Bool) -> Bool {
        FileText.writeAll(descriptor, bytes) && (!durable || fdatasync(descriptor) == 0)
    }

    public var isOpenForAppending: Bool { descriptor >= 0 }

    public func closeAppending() {
        if descriptor >= 0 { closeDescriptor(descriptor) }
        descriptor = -1
    }

    public func replace(with bytes: [UInt8]) -> Bool {
        guard AtomicFile.write(bytes, to: path, durable: true) else { return false }
        syncDirectory()
        return true
    }

    public func remove() {
        unlink(path)
        syncDirectory()
    }

    public var lastErrorText: String { FileSystem.lastErrorText() }

    private func syncDirectory() {
        let handle = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard handle >= 0 else { return }
        fsync(handle)
        closeDescriptor(handle)
    }
}

/// `close(2)`, named apart from the methods above.
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
