// The few POSIX calls the up-to-date machinery needs, called directly: a no-op run over 10,000 tasks
// stats every source and output, and FileManager's per-call overhead would dominate it. opsrun is a
// Linux tool; the Darwin branch only keeps the package compiling elsewhere.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat(2)` says about a file, reduced to what the stat cache keys on.
public struct FileStatus: Hashable, Sendable {
    public enum Kind: UInt8, Sendable {
        case regular = 0, directory = 1, symbolicLink = 2, other = 3
    }

    public var kind: Kind
    public var size: Int64
    public var modificationNanoseconds: Int64
    /// Status-change time: set by the kernel on every write or metadata change, never by `touch -d`.
    public var changeNanoseconds: Int64
    public var inode: UInt64

    public init(kind: Kind, size: Int64, modificationNanoseconds: Int64, changeNanoseconds: Int64, inode: UInt64) {
        self.kind = kind
        self.size = size
        self.modificationNanoseconds = modificationNanoseconds
        self.changeNanoseconds = changeNanoseconds
        self.inode = inode
    }

    init(_ raw: stat) {
        let mode = raw.st_mode & S_IFMT
        kind = mode == S_IFREG ? .regular : mode == S_IFDIR ? .directory : mode == S_IFLNK ? .symbolicLink : .other
        size = Int64(raw.st_size)
        #if canImport(Darwin)
        modificationNanoseconds = Int64(raw.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(raw.st_mtimespec.tv_nsec)
        changeNanoseconds = Int64(raw.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(raw.st_ctimespec.tv_nsec)
        #else
        modificationNanoseconds = Int64(raw.st_mtim.tv_sec) * 1_000_000_000 + Int64(raw.st_mtim.tv_nsec)
        changeNanoseconds = Int64(raw.st_ctim.tv_sec) * 1_000_000_000 + Int64(raw.st_ctim.tv_nsec)
        #endif
        inode = UInt64(raw.st_ino)
    }
}

/// Which file a path leads to, links followed: its device and inode.
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}

/// One name in a directory, with its type when the directory entry tells it.
public struct DirectoryEntry: Sendable {
    public var name: String
    /// `nil` when the file system does not say (`DT_UNKNOWN`); ask `FileSystem.status` then.
    public var kind: FileStatus.Kind?

    public init(name: String, kind: FileStatus.Kind?) {
        self.name = name
        self.kind = kind
    }
}

/// Thin wrappers over POSIX file calls; every path is absolute or relative to the current directory.
enum FileSystem {
    /// `stat` (following symbolic links) or `lstat`; `nil` when nothing is there or it cannot be seen.
    static func status(_ path: String, followingLinks: Bool = true) -> FileStatus? {
        var raw = stat()
        let result = followingLinks ? stat(path, &raw) : lstat(path, &raw)
        return result == 0 ? FileStatus(raw) : nil
    }

    /// The device and inode `path` leads to (links followed); `nil` when nothing is there.
    static func identity(of path: String) -> FileIdentity? {
        var raw = stat()
        guard stat(path, &raw) == 0 else { return nil }
        return FileIdentity(device: UInt64(raw.st_dev), inode: UInt64(raw.st_ino))
    }

    /// `stat` of `path` relative to an open directory (`openDirectory`), or of `path` itself when it
    /// is absolute or `directory` is `AT_FDCWD`. A short relative path spares the kernel walking
    /// the whole absolute path again for every file of a no-op run.
    static func status(_ path: String, in directory: Int32) -> FileStatus? {
        var raw = stat()
        return fstatat(directory, path, &raw, 0) == 0 ? FileStatus(raw) : nil
    }

    /// A descriptor of the directory at `path` for `status(_:in:)` and `openFile(_:in:)`, or
    /// `AT_FDCWD` when it cannot be opened (then only absolute paths may be used with it).
    static func openDirectory(_ path: String) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : AT_FDCWD
    }

    /// Closes what `openDirectory` returned.
    static func closeDirectory(_ descriptor: Int32) {
        if descriptor != AT_FDCWD { _ = close(descriptor) }
    }

    /// `openat(directory, path, O_RDONLY)`: -1 on failure. Non-blocking, so that a file that
    /// turned into a named pipe between its stat and this open cannot hang the run (callers
    /// check what they opened is a regular file before reading it).
    static func openFile(_ path: String, in directory: Int32) -> Int32 {
        openat(directory, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    }

    /// What `path` is, in words, when it is neither a regular file nor a directory: "a named
    /// pipe", "a device", "a socket" (`nil` otherwise, or when nothing is there).
    static func specialKind(of path: String, in directory: Int32 = AT_FDCWD) -> String? {
        var raw = stat()
        guard fstatat(directory, path, &raw, 0) == 0 else { return nil }
        switch raw.st_mode & S_IFMT {
        case S_IFIFO: return "a named pipe"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        case S_IFREG, S_IFDIR: return nil
        default: return "not a regular file"
        }
    }

    static func status(descriptor: Int32) -> FileStatus? {
        var raw = stat()
        return fstat(descriptor, &raw) == 0 ? FileStatus(raw) : nil
    }

    /// The names in a directory except `.` and `..`, in no particular order; `nil` if it cannot be read.
    static func entries(of path: String) -> [DirectoryEntry]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var result: [DirectoryEntry] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            let kind: FileStatus.Kind?
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): kind = .regular
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK): kind = .symbolicLink
            case Int32(DT_UNKNOWN): kind = nil
            default: kind = .other
            }
            result.append(DirectoryEntry(name: name, kind: kind))
        }
        return result
    }

    /// Wall-clock time in nanoseconds since 1970: the clock file timestamps are taken from.
    static func realtimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Wall-clock time in nanoseconds as the kernel stamps files with it: its coarse clock, which
    /// lags the precise one by up to a tick. A file written after this call has a later (or equal)
    /// mtime and ctime; with the precise clock one written a little after could look earlier.
    static func coarseRealtimeNanoseconds() -> Int64 {
        var now = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        #else
        clock_gettime(CLOCK_REALTIME, &now)
        #endif
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// `base/relative`, or `relative` itself when it is absolute.
    static func join(_ base: String, _ relative: String) -> String {
        // Byte tests: `hasPrefix`/`hasSuffix` compare by Unicode rules, slow for every file of a run.
        if relative.utf8.first == UInt8(ascii: "/") { return relative }
        guard let last = base.utf8.last else { return relative }
        return last == UInt8(ascii: "/") ? base + relative : base + "/" + relative
    }

    /// The text of the last `errno`, e.g. "No space left on device".
    static func lastErrorText() -> String { String(cString: strerror(errno)) }
}
