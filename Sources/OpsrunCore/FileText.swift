#if canImport(Glibc)
    import Glibc
#endif

/// Small file-system reads and writes without Foundation.
public enum FileText {
    /// The whole file as UTF-8 text (invalid bytes replaced), or `nil` with `errno` set.
    public static func read(_ path: String) -> String? {
        readBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The whole file's bytes, or `nil` with `errno` set. Read into one buffer of the file's size
    /// (growing only if the file grows meanwhile): for the large files read on every run (a
    /// megabyte of manifest and its cache), growing 64 KiB at a time cost a copy per step and was a
    /// fifth of a manifest-cache hit.
    public static func readBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        // One byte more than the size, so that reaching it means the file grew: read on then.
        var capacity = Int(info.st_size) + 1
        var bytes: [UInt8] = []
        while true {
            var failed = false
            var ended = false
            let chunk = [UInt8](unsafeUninitializedCapacity: capacity - bytes.count) { buffer, count in
                count = 0
                while count < buffer.count {
                    let n = Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
                    if n > 0 {
                        count += n
                    } else if n == 0 {
                        ended = true
                        return
                    } else if errno != EINTR {
                        failed = true
                        return
                    }
                }
            }
            if failed { return nil }
            if bytes.isEmpty { bytes = chunk } else { bytes += chunk }
            if ended { return bytes }
            capacity *= 2
        }
    }

    /// Writes `bytes` to a new file at `path`, never replacing one (`O_EXCL`: a file made
    /// meanwhile, or a symlink, is not followed or overwritten). Returns `errno` on failure
    /// (`EEXIST` when something is there), nil on success.
    public static func createNew(_ path: String, _ bytes: [UInt8]) -> Int32? {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return errno }
        defer { Glibc.close(descriptor) }
        return writeAll(descriptor, bytes) ? nil : errno
    }

    /// Writes all of `bytes` to `descriptor`, retrying after interrupts and short writes; `false`
    /// (with `errno` set) on any other error.
    public static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }

    /// Whether `path` names an existing regular file.
    public static func isFile(_ path: String) -> Bool {
        fileSize(path) != nil
    }

    /// The size of the regular file at `path` (symbolic links followed); `nil` for anything else.
    public static func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Whether `path` names an existing directory.
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The names in the directory `path` (not `.` and `..`), unsorted; `nil` when it cannot be read.
    /// For suggestions: a misspelt path's near names.
    public static func names(inDirectory path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The process's current directory.
    public static func currentDirectory() -> String {
        guard let path = getcwd(nil, 0) else { return "." }
        defer { free(path) }
        return String(cString: path)
    }

    /// The absolute path of an existing `path` with every symbolic link, `.` and `..` resolved as
    /// the kernel resolves them (`realpath(3)`); `nil` with `errno` set when it cannot be.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `path` made absolute against `base`, with `.` and `..` components resolved textually.
    /// On the UTF-8 bytes in place: splitting the text by characters cost 44,000 instructions a
    /// path, a fifth of a 39-task no-op, and splitting its `utf8` view still 20,000 (callgrind).
    public static func absolute(_ path: String, relativeTo base: String) -> String {
        var joined = path.hasPrefix("/") ? path : base + "/" + path
        return joined.withUTF8 { bytes in
            let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count + 1)
            // Where each component kept so far starts in `result` (at its `/`), for `..`.
            var starts: [Int] = []
            var index = 0
            while true {
                while index < bytes.count, bytes[index] == slash { index += 1 }
                let start = index
                while index < bytes.count, bytes[index] != slash { index += 1 }
                let length = index - start
                if length == 0 { break }
                if length == 1, bytes[start] == dot { continue }
                if length == 2, bytes[start] == dot, bytes[start + 1] == dot {
                    if let kept = starts.popLast() { result.removeSubrange(kept...) }
                    continue
                }
                starts.append(result.count)
                result.append(slash)
                result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            }
            return result.isEmpty ? "/" : String(decoding: result, as: UTF8.self)
        }
    }
}
