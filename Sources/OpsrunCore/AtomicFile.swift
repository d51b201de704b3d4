#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a whole file at once: readers see the old file or the new one, never a part.
public enum AtomicFile {
    /// Writes `bytes` to a temporary file beside `path` and renames it over `path`. Returns whether it
    /// worked; on failure nothing is left behind and `path` is as it was.
    ///
    /// The temporary name carries the process id, so two opsrun processes writing the same file at
    /// once each rename a complete file of their own and the later one wins. With `durable`, the
    /// file is fsynced before the rename (the caller syncs the directory after it); without, callers
    /// verify what they read, so a torn file after a power loss is just stale. On failure `errno`
    /// says why.
    @discardableResult
    public static func write(_ bytes: [UInt8], to path: String, durable: Bool = false) -> Bool {
        let temporary = "\(path).\(getpid()).tmp"
        let file = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard file >= 0 else { return false }
        let written = FileText.writeAll(file, bytes) && (!durable || fsync(file) == 0)
        let failure = errno
        let closed = close(file) == 0
        guard written, closed, rename(temporary, path) == 0 else {
            let reason = written ? errno : failure
            unlink(temporary)
            errno = reason
            return false
        }
        return true
    }
}
