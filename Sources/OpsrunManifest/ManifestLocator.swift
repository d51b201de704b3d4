#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import OpsrunCore

/// Where the manifest of a run lives, and how messages name it.
public struct ManifestSource: Sendable, Equatable {
    /// Absolute.
    public var path: String
    /// As shown in messages, seen from where opsrun started: "Tasksfile.yaml", "../Tasksfile.yaml",
    /// the `-f` path as given, each after `-C`'s directory as given ("sub/Tasksfile.yaml").
    public var displayName: String
    /// The absolute directory of the file: the base of its relative paths.
    public var directory: String

    public init(path: String, displayName: String, directory: String) {
        self.path = path
        self.displayName = displayName
        self.directory = directory
    }

    /// `path`, relative to the manifest's directory, as seen from where opsrun started.
    public func shownPath(_ path: String) -> String {
        guard let slash = displayName.lastIndex(of: "/") else { return path }
        let directory = displayName[..<slash]
        return ManifestLocator.shownPath(path, under: directory.isEmpty ? "/" : String(directory))
    }

    /// The file's text; a diagnostic without location when it cannot be read or is not UTF-8.
    public func readText() throws(DiagnosticList) -> String {
        try text(of: readBytes())
    }

    /// The file's bytes, unchecked.
    public func readBytes() throws(DiagnosticList) -> [UInt8] {
        guard let bytes = FileText.readBytes(path) else {
            throw ManifestLocator.cannotRead(displayName, errno: errno)
        }
        return bytes
    }

    /// `bytes` (as `readBytes` gave them) as text, without a leading byte order mark; an error
    /// at the first byte that is not UTF-8 unless they all are.
    public func text(of bytes: [UInt8]) throws(DiagnosticList) -> String {
        guard let text = UTF8Text.text(bytes) else {
            let bad = UTF8Text.firstInvalidByte(in: bytes) ?? (1, 1, 0)
            let location = SourceLocation(file: displayName, line: bad.line, column: bad.column)
            let byte = "0x" + String(bad.byte, radix: 16, uppercase: true)
            throw DiagnosticList([.error("the manifest is not UTF-8 text: byte \(byte) here is not UTF-8", at: location)])
        }
        return text
    }
}

/// Finds the manifest: `-f PATH`, else `Tasksfile.yaml` / `Tasksfile.yml` here or in the nearest ancestor.
public enum ManifestLocator {
    public static let fileNames = ["Tasksfile.yaml", "Tasksfile.yml"]

    /// `-f PATH` if given (relative to `workingDirectory`), else Tasksfile.yaml then Tasksfile.yml
    /// in workingDirectory and then each ancestor. Throws a Diagnostic (no location) when none is
    /// found or the file cannot be read.
    ///
    /// `workingDirectory` is where to start, without symbolic links (`-C` resolved); `shownAs` is
    /// how the user wrote it, relative to where opsrun started (`nil` when it is that directory):
    /// the manifest's display name starts with it, so `-C sub` shows `sub/Tasksfile.yaml`.
    public static func locate(
        explicitFile: String?, workingDirectory: String, shownAs shownDirectory: String? = nil
    ) throws(DiagnosticList) -> ManifestSource {
        let cwd = normalize(workingDirectory)
        if let explicitFile {
            let displayName = shownPath(explicitFile, under: shownDirectory)
            // The kernel resolves `link/..` to the link target's parent, as `cat` and make do;
            // only the last component is kept as written, so a manifest that is a symbolic link
            // still has the link's directory as its own.
            let joined = explicitFile.hasPrefix("/") ? explicitFile : cwd + "/" + explicitFile
            try checkReadable(joined, displayName: displayName)
            let slash = joined.lastIndex(of: "/")!
            let name = joined[joined.index(after: slash)...]
            guard let directory = FileText.realPath(slash == joined.startIndex ? "/" : String(joined[..<slash])) else {
                throw cannotRead(displayName, errno: errno)
            }
            let path = directory == "/" ? "/" + name : directory + "/" + name
            return ManifestSource(path: path, displayName: displayName, directory: directory)
        }
        var directory = cwd
        var levelsUp = 0
        while true {
            for name in fileNames {
                let path = directory == "/" ? "/" + name : directory + "/" + name
                // The nearest file wins even when it cannot be read: skipping it would run another project.
                guard exists(path) else { continue }
                let displayName = shownPath(String(repeating: "../", count: levelsUp) + name, under: shownDirectory)
                try checkReadable(path, displayName: displayName)
                return ManifestSource(path: path, displayName: displayName, directory: directory)
            }
            guard let up = parent(of: directory) else { break }
            directory = up
            levelsUp += 1
        }
        throw DiagnosticList([
            Diagnostic(at: nil, "no Tasksfile.yaml or Tasksfile.yml in \(cwd) or any directory above it; name one with -f"),
        ])
    }

    /// `path` (relative to a directory written `directory`) as seen from where opsrun started:
    /// `sub` + `Tasksfile.yaml` is `sub/Tasksfile.yaml`; an absolute `path` stays as it is.
    public static func shownPath(_ path: String, under directory: String?) -> String {
        guard let directory, directory != ".", !path.hasPrefix("/") else { return path }
        var base = Substring(directory)
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        return base == "/" ? "/" + path : base + "/" + path
    }

    /// An absolute path without `.`, `..`, empty components or a trailing `/` (lexically, as a shell's `cd` does).
    static func normalize(_ path: String) -> String {
        FileText.absolute(path, relativeTo: path.hasPrefix("/") ? "/" : FileText.currentDirectory())
    }

    /// The directory above a normalized absolute path; `nil` for `/`.
    static func parent(of path: String) -> String? {
        guard path != "/", let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Whether something other than a directory is at `path` (a file named like a manifest).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
    }

    static func checkReadable(_ path: String, displayName: String) throws(DiagnosticList) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw cannotRead(displayName, errno: errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw DiagnosticList([Diagnostic(at: nil, file: displayName, "is a directory, not a manifest file")])
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw cannotRead(displayName, errno: errno) }
        close(fd)
    }

    static func cannotRead(_ displayName: String, errno code: Int32) -> DiagnosticList {
        DiagnosticList([Diagnostic(at: nil, file: displayName, "cannot read the manifest: \(String(cString: strerror(code)))")])
    }
}
