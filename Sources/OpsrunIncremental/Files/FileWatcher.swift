#if canImport(Glibc)
    import Glibc
#endif
import OpsrunCore

/// Directories watched with inotify (docs/manual/watch.md, `--watch`): which paths under them changed.
///
/// A directory is watched rather than each file, so that an editor's save (a new file renamed
/// over the old one) and new files matching a glob are seen. `descriptor` is for `poll`; `changes`
/// reads what is queued without blocking.
public final class FileWatcher {
    public let descriptor: Int32
    /// Watch descriptor → the directory's path, and whether directories made under it are
    /// watched too.
    private var watched: [Int32: (path: String, recursive: Bool)] = [:]
    /// Each watched directory's path, and whether it is watched with its subdirectories.
    private var watchedPaths: [String: Bool] = [:]
    /// The first directory that could not be watched and why (the inotify limit, most often).
    public private(set) var problem: String?

    /// A change, a path under a watched directory, or every path (the kernel's queue overflowed).
    public enum Change: Equatable {
        case path(String)
        case overflow
    }

    private static let events = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)

    /// nil when inotify is not available (`errno` says why).
    public init?() {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if descriptor < 0 { return nil }
    }

    deinit { close(descriptor) }

    /// Watches `directory`, and with `recursive` every directory beneath it (but `.git` and
    /// `.opsrun`, which change all the time and hold no sources). A missing directory is skipped.
    public func watch(_ directory: String, recursive: Bool) {
        // Watched already, as deeply: nothing to do. Watched without its subdirectories and now
        // asked for with them: the same watch (inotify returns it again), then the walk.
        if let known = watchedPaths[directory], known || !recursive { return }
        let handle = inotify_add_watch(descriptor, directory, Self.events | UInt32(IN_ONLYDIR))
        guard handle >= 0 else {
            if errno != ENOENT && errno != ENOTDIR && problem == nil {
                problem = "cannot watch \(directory): \(String(cString: strerror(errno)))"
            }
            return
        }
        watched[handle] = (directory, recursive)
        watchedPaths[directory] = recursive
        guard recursive, let entries = opendir(directory) else { return }
        defer { closedir(entries) }
        while let entry = readdir(entries) {
            guard Int32(entry.pointee.d_type) == DT_DIR || Int32(entry.pointee.d_type) == DT_UNKNOWN else { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." || name == ".git" || name == ".opsrun" { continue }
            let child = directory == "/" ? "/" + name : directory + "/" + name
            if Int32(entry.pointee.d_type) == DT_UNKNOWN && !FileText.isDirectory(child) { continue }
            watch(child, recursive: true)
        }
    }

    /// The changes queued now, in order, without waiting. A directory made under a recursive
    /// watch is watched from now on, and counts as a change.
    public func changes() -> [Change] {
        var found: [Change] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = UnsafeRawBufferPointer(rebasing: raw[nameStart..<(nameStart + Int(event.len))])
                    offset = nameStart + Int(event.len)
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        found.append(.overflow)
                        continue
                    }
                    guard let directory = watched[event.wd] else { continue }
                    if event.mask & UInt32(IN_IGNORED) != 0 {
                        // The directory itself went away.
                        watched[event.wd] = nil
                        watchedPaths[directory.path] = nil
                        continue
                    }
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    let path = directory.path == "/" ? "/" + name : directory.path + "/" + name
                    if directory.recursive, event.mask & UInt32(IN_ISDIR) != 0,
                        event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0
                    {
                        watch(path, recursive: true)
                    }
                    found.append(.path(path))
                }
            }
        }
        return found
    }
}
