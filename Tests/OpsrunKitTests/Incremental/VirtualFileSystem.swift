import Synchronization
@testable import OpsrunIncremental

#if canImport(Glibc)
    import Glibc
#endif

/// A file system in memory for the up-to-date rules' tests (as ninja's `VirtualFileSystem`): files
/// with bytes and timestamps, directories, special files; a clock the test moves; and a list of the
/// files read, so a test can say "nothing was read". Paths are absolute; `..` and `.` are taken
/// lexically.
final class VirtualFileSystem: FileAccess {
    private struct Node {
        var kind: FileStatus.Kind
        var bytes: [UInt8] = []
        var modified: Int64
        var changed: Int64
        var inode: UInt64
    }

    private struct Contents {
        var nodes: [String: Node] = ["/": Node(kind: .directory, modified: 0, changed: 0, inode: 1)]
        var handles: [Int32: String] = [:]
        var nextHandle: Int32 = 1000
        var nextInode: UInt64 = 2
        /// Nanoseconds since 1970: files written now get it as their mtime and ctime.
        var now: Int64 = 1_800_000_000 * 1_000_000_000
        var reads: [String] = []

        mutating func allocateInode() -> UInt64 {
            defer { nextInode += 1 }
            return nextInode
        }
    }

    private let contents = Mutex(Contents())

    // MARK: - What a test does

    /// Writes `text` at `path` now, making its parent directories; a file already there keeps its
    /// inode, as an edit in place does.
    func write(_ path: String, _ text: String) {
        let path = Self.normalized(path)
        contents.withLock { state in
            Self.makeParents(of: path, in: &state)
            let inode = state.nodes[path].map(\.inode) ?? state.allocateInode()
            state.nodes[path] = Node(
                kind: .regular, bytes: Array(text.utf8), modified: state.now, changed: state.now, inode: inode)
        }
    }

    /// Sets the file's mtime, as `touch -d` does (its ctime moves to now: the kernel's, not the user's).
    func setModified(_ path: String, to nanoseconds: Int64) {
        contents.withLock { state in
            state.nodes[Self.normalized(path)]?.modified = nanoseconds
            state.nodes[Self.normalized(path)]?.changed = state.now
        }
    }

    /// A named pipe at `path`: reading it would block, so it must never be read.
    func makeNamedPipe(_ path: String) {
        contents.withLock { state in
            Self.makeParents(of: path, in: &state)
            state.nodes[Self.normalized(path)] = Node(
                kind: .other, modified: state.now, changed: state.now, inode: state.allocateInode())
        }
    }

    func makeDirectory(_ path: String) {
        contents.withLock { state in
            Self.makeParents(of: path + "/x", in: &state)
        }
    }

    func remove(_ path: String) {
        let path = Self.normalized(path)
        contents.withLock { state in
            state.nodes = state.nodes.filter { $0.key != path && !$0.key.hasPrefix(path + "/") }
        }
    }

    /// Moves the clock on.
    func advance(seconds: Int64) {
        contents.withLock { $0.now += seconds * 1_000_000_000 }
    }

    /// The files read so far (absolute paths, in order), and forgets them.
    func takeReads() -> [String] {
        contents.withLock { state in
            defer { state.reads = [] }
            return state.reads
        }
    }

    func text(_ path: String) -> String? {
        contents.withLock { state in state.nodes[Self.normalized(path)].map { String(decoding: $0.bytes, as: UTF8.self) } }
    }

    // MARK: - FileAccess

    func status(_ path: String, followingLinks: Bool) -> FileStatus? {
        contents.withLock { state in state.nodes[Self.normalized(path)].map(Self.status(of:)) }
    }

    func status(_ path: String, in directory: Int32) -> FileStatus? {
        contents.withLock { state in state.nodes[Self.resolve(path, in: directory, state)].map(Self.status(of:)) }
    }

    func identity(of path: String) -> FileIdentity? {
        status(path).map { FileIdentity(device: 1, inode: $0.inode) }
    }

    func specialKind(of path: String, in directory: Int32) -> String? {
        status(path, in: directory)?.kind == .other ? "a named pipe" : nil
    }

    func entries(of path: String) -> [DirectoryEntry]? {
        let directory = Self.normalized(path)
        return contents.withLock { state in
            guard state.nodes[directory]?.kind == .directory else { return nil }
            let prefix = directory == "/" ? "/" : directory + "/"
            return state.nodes.compactMap { path, node in
                guard path.hasPrefix(prefix), path.count > prefix.count else { return nil }
                let name = String(path.dropFirst(prefix.count))
                return name.contains("/") ? nil : DirectoryEntry(name: name, kind: node.kind)
            }
        }
    }

    func openDirectory(_ path: String) -> Int32 {
        contents.withLock { state in
            let path = Self.normalized(path)
            guard state.nodes[path]?.kind == .directory else { return AT_FDCWD }
            let handle = state.nextHandle
            state.nextHandle += 1
            state.handles[handle] = path
            return handle
        }
    }

    func closeDirectory(_ directory: Int32) {
        _ = contents.withLock { $0.handles.removeValue(forKey: directory) }
    }

    func read(
        _ path: String, in directory: Int32, buffer: UnsafeMutableRawBufferPointer,
        chunk: (UnsafeRawBufferPointer) -> Bool
    ) -> FileStatus? {
        let found: (FileStatus, [UInt8])? = contents.withLock { state in
            let path = Self.resolve(path, in: directory, state)
            guard let node = state.nodes[path], node.kind == .regular else { return nil }
            state.reads.append(path)
            return (Self.status(of: node), node.bytes)
        }
        guard let (status, bytes) = found else { return nil }
        var offset = 0
        while offset < bytes.count {
            let count = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + count)]))
            }
            offset += count
            guard chunk(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return nil }
        }
        return status
    }

    func realtimeNanoseconds() -> Int64 { contents.withLock { $0.now } }

    func coarseRealtimeNanoseconds() -> Int64 { contents.withLock { $0.now } }

    // MARK: - Paths

    private static func status(of node: Node) -> FileStatus {
        FileStatus(
            kind: node.kind, size: Int64(node.bytes.count), modificationNanoseconds: node.modified,
            changeNanoseconds: node.changed, inode: node.inode)
    }

    private static func resolve(_ path: String, in directory: Int32, _ state: Contents) -> String {
        if path.hasPrefix("/") || directory == AT_FDCWD { return normalized(path) }
        return normalized((state.handles[directory] ?? "/") + "/" + path)
    }

    /// `/a/./b/../c` → `/a/c`.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                _ = parts.popLast()
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func makeParents(of path: String, in state: inout Contents) {
        var parent = normalized(path)
        var missing: [String] = []
        while let slash = parent.lastIndex(of: "/"), slash > parent.startIndex {
            parent = String(parent[..<slash])
            if state.nodes[parent] != nil { break }
            missing.append(parent)
        }
        for directory in missing {
            state.nodes[directory] = Node(kind: .directory, modified: state.now, changed: state.now, inode: state.allocateInode())
        }
    }
}
