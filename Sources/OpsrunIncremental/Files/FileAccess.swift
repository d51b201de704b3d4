// The file system as the up-to-date rules see it: every stat, listing and read they make goes
// through one `FileAccess`, as ninja's go through its `DiskInterface`. A run uses `DiskFiles`, the
// POSIX calls; the tests of the rules use a virtual file system in memory (no process, no disk),
// with a clock they move, so that "a file edited within the racy window" is a line of a test, not a
// sleep.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file calls the up-to-date bookkeeping makes. Paths are absolute, or relative to `directory`
/// (a handle from `openDirectory`, or `AT_FDCWD`: then relative to the current directory).
/// `Sendable`: the stat prefetch calls `status(_:in:)` from its worker threads.
public protocol FileAccess: Sendable {
    /// `stat` (following symbolic links) or `lstat`; `nil` when nothing is there or it cannot be seen.
    func status(_ path: String, followingLinks: Bool) -> FileStatus?
    /// `stat` of `path` relative to `directory` (links followed).
    func status(_ path: String, in directory: Int32) -> FileStatus?
    /// The device and inode `path` leads to (links followed); `nil` when nothing is there.
    func identity(of path: String) -> FileIdentity?
    /// What `path` is, in words, when it is neither a regular file nor a directory ("a named
    /// pipe", "a device", "a socket"); `nil` otherwise, or when nothing is there.
    func specialKind(of path: String, in directory: Int32) -> String?
    /// The names in a directory except `.` and `..`, in no particular order; `nil` if it cannot be read.
    func entries(of path: String) -> [DirectoryEntry]?
    /// A handle of the directory at `path` for the calls that take one, or `AT_FDCWD` when it cannot be opened.
    func openDirectory(_ path: String) -> Int32
    /// Lets go of what `openDirectory` returned.
    func closeDirectory(_ directory: Int32)
    /// Reads the regular file at `path`, handing its bytes to `chunk` piece by piece through
    /// `buffer`; `chunk` returns `false` to abandon the read. Returns the stat of the file as
    /// opened (taken before any byte is read), or `nil` when it cannot be opened or read, is not a
    /// regular file, was abandoned, or held more than its size said.
    func read(
        _ path: String, in directory: Int32, buffer: UnsafeMutableRawBufferPointer,
        chunk: (UnsafeRawBufferPointer) -> Bool
    ) -> FileStatus?
    /// Wall-clock time in nanoseconds since 1970, the clock file timestamps are taken from.
    func realtimeNanoseconds() -> Int64
    /// The same as the kernel stamps files with it: a file written after this call has a later
    /// (or equal) mtime and ctime.
    func coarseRealtimeNanoseconds() -> Int64
}

extension FileAccess {
    func status(_ path: String) -> FileStatus? { status(path, followingLinks: true) }

    /// The whole of the regular file at `path` (a depfile); `nil` when it cannot be read.
    func contents(of path: String) -> [UInt8]? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        var bytes: [UInt8] = []
        let read = self.read(path, in: AT_FDCWD, buffer: buffer) { chunk in
            bytes.append(contentsOf: chunk)
            return true
        }
        return read == nil ? nil : bytes
    }
}

/// The real file system, through the POSIX calls of `FileSystem`.
public struct DiskFiles: FileAccess {
    public init() {}

    public func status(_ path: String, followingLinks: Bool) -> FileStatus? {
        FileSystem.status(path, followingLinks: followingLinks)
    }

    public func status(_ path: String, in directory: Int32) -> FileStatus? { FileSystem.status(path, in: directory) }

    public func identity(of path: String) -> FileIdentity? { FileSystem.identity(of: path) }

    public func specialKind(of path: String, in directory: Int32) -> String? {
        FileSystem.specialKind(of: path, in: directory)
    }

    public func entries(of path: String) -> [DirectoryEntry]? { FileSystem.entries(of: path) }

    public func openDirectory(_ path: String) -> Int32 { FileSystem.openDirectory(path) }

    public func closeDirectory(_ directory: Int32) { FileSystem.closeDirectory(directory) }

    public func read(
        _ path: String, in directory: Int32, buffer: UnsafeMutableRawBufferPointer,
        chunk: (UnsafeRawBufferPointer) -> Bool
    ) -> FileStatus? {
        let descriptor = FileSystem.openFile(path, in: directory)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // Stat'd as a file, but what was opened may have been swapped since.
        guard let status = FileSystem.status(descriptor: descriptor), status.kind == .regular else { return nil }
        var total: Int64 = 0
        while true {
            let count = systemRead(descriptor, buffer.baseAddress, buffer.count)
            if count == 0 { return status }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            // More than its size said: growing as it is read, or not what it says it is
            // (`/proc/self/pagemap` says 0 bytes and reads 256 GiB). What was read proves nothing.
            total += Int64(count)
            if total > status.size { return nil }
            guard chunk(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return nil }
        }
    }

    public func realtimeNanoseconds() -> Int64 { FileSystem.realtimeNanoseconds() }

    public func coarseRealtimeNanoseconds() -> Int64 { FileSystem.coarseRealtimeNanoseconds() }
}

/// `read(2)`, named apart from `DiskFiles.read`.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
