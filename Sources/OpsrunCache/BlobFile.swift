import OpsrunCore
import OpsrunIncremental
#if canImport(Glibc)
import Glibc
#endif
import Crypto

/// Copies between files and memory while hashing what passes, so a blob is written only under the
/// name of its own SHA-256 and restored only when its bytes are the ones its entry names.
enum BlobFile {
    private static let chunk = 64 * 1024

    /// Copies `source` to `destination` (a new file: `O_EXCL`, never through a link; relative to
    /// `directory`, a descriptor) with `mode`, and returns the SHA-256 and size of what was copied,
    /// or `nil` (with `destination` removed) on any error. `durable`: on the disk when it returns.
    static func copy(
        from source: String, at directory: Int32 = AT_FDCWD, to destination: String, mode: UInt32, durable: Bool = false
    ) -> CacheEntry.Blob? {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return nil }
        defer { close(input) }
        let output = create(destination, at: directory, mode: mode)
        guard output >= 0 else { return nil }
        var hasher = SHA256()
        var size: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: chunk)
        var failed = false
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress!, chunk) }
            if count < 0 {
                if errno == EINTR { continue }
                failed = true
                break
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            if !writeAll(output, buffer, count: count) {
                failed = true
                break
            }
            size += Int64(count)
        }
        // The umask must not narrow what the entry says (`open` applied it).
        if !failed, fchmod(output, mode_t(mode & 0o7777)) != 0 { failed = true }
        if !failed, durable, fsync(output) != 0 { failed = true }
        if close(output) != 0 { failed = true }
        if failed {
            unlinkat(directory, destination, 0)
            return nil
        }
        return CacheEntry.Blob(hash: ContentDigest(hasher.finalize()).description, size: size)
    }

    /// Writes `bytes` to `destination` (a new file, never through a link; relative to `directory`,
    /// a descriptor) with `mode`; `false` (nothing left) on error. `durable`: on the disk when it
    /// returns.
    static func write(
        _ bytes: [UInt8], at directory: Int32 = AT_FDCWD, to destination: String, mode: UInt32, durable: Bool = false
    ) -> Bool {
        let output = create(destination, at: directory, mode: mode)
        guard output >= 0 else { return false }
        let written = writeAll(output, bytes, count: bytes.count) && fchmod(output, mode_t(mode & 0o7777)) == 0
            && (!durable || fsync(output) == 0)
        let closed = close(output) == 0
        if !(written && closed) { unlinkat(directory, destination, 0) }
        return written && closed
    }

    private static func create(_ path: String, at directory: Int32, mode: UInt32) -> Int32 {
        openat(directory, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode & 0o7777))
    }

    /// The SHA-256 and size of the file at `path`, read in pieces; `nil` when it cannot be read.
    static func blob(at path: String) -> CacheEntry.Blob? {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return nil }
        defer { close(input) }
        var hasher = SHA256()
        var size: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress!, chunk) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            size += Int64(count)
        }
        return CacheEntry.Blob(hash: ContentDigest(hasher.finalize()).description, size: size)
    }

    /// Makes the names in the directory at `path` durable (what was renamed into it).
    @discardableResult
    static func syncDirectory(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return fsync(descriptor) == 0
    }

    /// The whole file, if its SHA-256 is `blob`'s.
    static func read(_ path: String, expecting blob: CacheEntry.Blob) -> [UInt8]? {
        guard let bytes = FileText.readBytes(path), Int64(bytes.count) == blob.size, Hex.sha256(bytes) == blob.hash else {
            return nil
        }
        return bytes
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], count: Int) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < count {
                let n = Glibc.write(descriptor, raw.baseAddress! + offset, count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }
}
