#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the manifest of a run lives, and how messages name it.
public struct ManifestSource: Sendable, Equatable {
    /// Absolute.
    public var path: String
    /// As shown in messages: "Tasksfile.yaml", "../Tasksfile.yaml", or the `-f` path as given.
    public var displayName: String
    /// The absolute directory of the file: the base of its relative paths.
    public var directory: String

    public init(path: String, displayName: String, directory: String) {
        self.path = path
        self.displayName = displayName
        self.directory = directory
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

    /// `-f PATH` if given (relative to `workingDirectory`), else Tasksfile.yaml then Tasksfile.yml in workingDirectory and then each ancestor. Throws a Diagnostic (no location) when none is found or the file cannot be read.
    public static func locate(explicitFile: String?, workingDirectory: String) throws(DiagnosticList) -> ManifestSource {
        let cwd = normalize(workingDirectory)
        if let explicitFile {
            let path = normalize(explicitFile.hasPrefix("/") ? explicitFile : cwd + "/" + explicitFile)
            try checkReadable(path, displayName: explicitFile)
            return ManifestSource(path: path, displayName: explicitFile, directory: parent(of: path) ?? "/")
        }
        var directory = cwd
        var levelsUp = 0
        while true {
            for name in fileNames {
                let path = directory == "/" ? "/" + name : directory + "/" + name
                // The nearest file wins even when it cannot be read: skipping it would run another project.
                guard exists(path) else { continue }
                let displayName = String(repeating: "../", count: levelsUp) + name
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

    /// An absolute path without `.`, `..`, empty components or a trailing `/` (lexically, as a shell's `cd` does).
    static func normalize(_ path: String) -> String {
        var base = path
        if !base.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                base = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + base
            }
        }
        var parts: [Substring] = []
        for part in base.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
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
