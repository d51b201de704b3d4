#if canImport(Glibc)
import Glibc
#endif

/// A directory that files are written beneath through no symbolic link (docs/manual/cache.md,
/// "What a cache entry may do"): each component of a path is opened with `O_NOFOLLOW` relative
/// to its parent (made when missing), and a file is created there under a temporary name and
/// renamed in, so neither a link planted in the project nor one swapped in meanwhile is followed.
final class ConfinedDirectory {
    private let root: Int32
    /// Directories opened so far, by their path below the root.
    private var opened: [String: Int32] = [:]
    private var temporaryCount = 0

    /// `nil` when `path` cannot be opened as a directory, or one of `below` (the directories
    /// under it that lead to the root wanted, each opened with `O_NOFOLLOW`) is not a directory:
    /// a task's directory that is a link out of the project is not written through.
    init?(_ path: String, below parts: [Substring] = []) {
        var descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        for part in parts {
            let next = openat(descriptor, String(part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(descriptor)
            guard next >= 0 else { return nil }
            descriptor = next
        }
        root = descriptor
    }

    /// Removes the file `path` (below the root) if it is one, following no link.
    func remove(_ path: String) {
        let parts = path.split(separator: "/")
        guard let name = parts.last, let parent = directory(parts.dropLast(), making: false) else { return }
        var info = stat()
        guard fstatat(parent, String(name), &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT != S_IFDIR else { return }
        unlinkat(parent, String(name), 0)
    }

    deinit {
        for descriptor in opened.values { close(descriptor) }
        close(root)
    }

    /// The first of `path`'s directories (below the root, `path` itself excluded) that is a
    /// symbolic link, as a path below the root; nothing is made.
    func link(on path: String) -> String? {
        var parent = root
        defer { if parent != root { close(parent) } }
        var walked = ""
        for name in path.split(separator: "/").dropLast() {
            walked += walked.isEmpty ? name : "/" + name
            let next = openat(parent, String(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else {
                var info = stat()
                let isLink = fstatat(parent, String(name), &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFLNK
                // Missing (made when written), or a file (the write fails): no link is followed.
                return isLink ? walked : nil
            }
            if parent != root { close(parent) }
            parent = next
        }
        return nil
    }

    /// Removes everything beneath the directory `path` (below the root), following no link: a
    /// link is removed, not what it points to. A file at `path` is removed; nothing there is fine.
    func empty(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        guard let name = parts.last, let parent = directory(parts.dropLast(), making: false) else {
            return errno == ENOENT
        }
        let descriptor = openat(parent, String(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return true }
            var info = stat()
            guard fstatat(parent, String(name), &info, AT_SYMLINK_NOFOLLOW) == 0 else { return false }
            return info.st_mode & S_IFMT != S_IFLNK && unlinkat(parent, String(name), 0) == 0
        }
        return Self.removeEntries(of: descriptor)
    }

    /// Removes what the directory `descriptor` holds, and closes it.
    private static func removeEntries(of descriptor: Int32) -> Bool {
        guard let handle = fdopendir(descriptor) else {
            close(descriptor)
            return false
        }
        defer { closedir(handle) }
        var names: [[CChar]] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                raw.prefix { $0 != 0 }.map { CChar(bitPattern: $0) } + [0]
            }
            if name == [46, 0] || name == [46, 46, 0] { continue }
            // Never an output's (the walk that stores them skips them too): a `dist/.git`
            // worktree is left alone.
            if name == Array(".git".utf8CString) || name == Array(".opsrun".utf8CString) { continue }
            names.append(name)
        }
        var removed = true
        for name in names {
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                let child = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child < 0 || !removeEntries(of: child) || unlinkat(descriptor, name, AT_REMOVEDIR) != 0 { removed = false }
            } else if unlinkat(descriptor, name, 0) != 0 {
                removed = false
            }
        }
        return removed
    }

    /// Writes the file `path` (below the root) with what `fill` puts in the new file it is given
    /// (`false`: nothing is left), created beside its place and renamed there.
    func write(_ path: String, fill: (_ directory: Int32, _ name: String) -> Bool) -> Bool {
        let parts = path.split(separator: "/")
        guard let name = parts.last, let parent = directory(parts.dropLast(), making: true) else { return false }
        temporaryCount += 1
        let temporary = ".opsrun-\(getpid())-\(temporaryCount).tmp"
        guard fill(parent, temporary) else { return false }
        guard renameat(parent, temporary, parent, String(name)) == 0 else {
            unlinkat(parent, temporary, 0)
            return false
        }
        return true
    }

    /// The directory `parts` below the root, opened through no link; made when missing and
    /// `making`. `nil` (with `errno`) when it cannot be.
    private func directory(_ parts: ArraySlice<Substring>, making: Bool) -> Int32? {
        var parent = root
        var walked = ""
        for name in parts {
            walked += walked.isEmpty ? name : "/" + name
            if let known = opened[walked] {
                parent = known
                continue
            }
            var next = openat(parent, String(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, making, mkdirat(parent, String(name), 0o755) == 0 || errno == EEXIST {
                next = openat(parent, String(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard next >= 0 else { return nil }
            opened[walked] = next
            parent = next
        }
        return parent
    }
}
