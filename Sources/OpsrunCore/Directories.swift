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
            if isDirectory(path) { return nil }
            return Failure(path: path, reason: "a file is in the way")
        }
        if code == ENOTDIR {
            // A file where a parent should be: name that one, not the directory asked for.
            var parent = parentPath(of: path)
            while !parent.isEmpty, parent != "/" {
                var info = stat()
                if stat(parent, &info) == 0 {
                    if info.st_mode & S_IFMT != S_IFDIR { return Failure(path: parent, reason: "a file is in the way") }
                    break
                }
                parent = parentPath(of: parent)
            }
        }
        return Failure(path: path, reason: reason(code))
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The absolute parent directories of the `outputs` written without wildcards (`*`, `?`, `[`,
    /// `\\`, as `GlobPattern` reads them), each once, in the order written: what a run makes before a
    /// task's first command (docs/manual/each.md, as ninja does). Relative outputs are taken from `directory`.
    /// A glob names no directory to make, and an output directly in `directory` needs none.
    /// Asked by the runner when a task is about to run, not for every task of a run: a no-op run
    /// of 10,000 tasks spent 12 % of its instructions making these lists when they were made ahead.
    public static func parents(ofOutputs outputs: [String], in directory: String) -> [String] {
        var directories: [String] = []
        for output in outputs {
            guard !output.utf8.contains(where: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?")
                || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "\\") })
            else { continue }
            // `./gen//x/y.h` is `gen/x/y.h`.
            let names = output.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
                .filter { !$0.elementsEqual(".".utf8) }
            guard names.count > 1 else { continue }
            var parent = output.utf8.first == UInt8(ascii: "/") ? "" : directory
            for name in names.dropLast() {
                if parent.utf8.last != UInt8(ascii: "/") { parent += "/" }
                parent += String(Substring(name))
            }
            if !directories.contains(parent) { directories.append(parent) }
        }
        return directories
    }

    /// `a/b` of `a/b/c` (trailing slashes ignored); `/` of `/a`; empty for a name without `/`.
    /// On bytes, not `Character`s, which cost about 4,000 instructions a call.
    public static func parentPath(of path: String) -> String {
        let slash = UInt8(ascii: "/")
        var text = path.utf8[...]
        while text.count > 1, text.last == slash { text.removeLast() }
        guard let last = text.lastIndex(of: slash) else { return "" }
        if last == text.startIndex { return "/" }
        return String(Substring(text[..<last]))
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
