#if canImport(Glibc)
    import Glibc
#endif

/// Making directories with their parents, as `mkdir -p` does: for the parents of a task's outputs.
public enum Directories {
    /// Why a directory could not be made: the one that failed (the path asked for or one of its
    /// parents) and the system's reason.
    public struct Failure: Error, Equatable, Sendable {
        public var path: String
        public var reason: String
    }

    /// Makes `path` and any missing parent; nothing to do when it is a directory already (or a
    /// link to one). Races with another maker of the same directory are fine: `EEXIST` of a
    /// directory is success.
    public static func make(_ path: String) -> Failure? {
        // The common case, the directory is there: one system call.
        if mkdir(path, 0o777) == 0 { return nil }
        var code = errno
        if code == ENOENT {
            let parent = parentPath(of: path)
            guard !parent.isEmpty, parent != path else { return Failure(path: path, reason: reason(code)) }
            if let failure = make(parent) { return failure }
            if mkdir(path, 0o777) == 0 { return nil }
            code = errno
        }
        if code == EEXIST {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return nil }
            return Failure(path: path, reason: "a file is in the way")
        }
        return Failure(path: path, reason: reason(code))
    }

    /// `a/b` of `a/b/c` (trailing slashes ignored); `/` of `/a`; empty for a name without `/`.
    public static func parentPath(of path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.last == "/" { text.removeLast() }
        guard let slash = text.lastIndex(of: "/") else { return "" }
        if slash == text.startIndex { return "/" }
        return String(text[..<slash])
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
