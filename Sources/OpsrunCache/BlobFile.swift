import OpsrunIncremental
#if canImport(Glibc)
import Glibc
#endif
import Crypto

/// Copies between files and memory while hashing what passes, so a blob is written only under the
/// name of its own SHA-256 and restored only when its bytes are the ones its entry names.
enum BlobFile {
    private static let chunk = 64 * 1024

    /// Copies `source` to `destination` (a new file: `O_EXCL`) with `mode`, and returns the
    /// SHA-256 and size of what was copied, or `nil` (with `destination` removed) on any error.
    static func copy(from source: String, to destination: String, mode: UInt32) -> CacheEntry.Blob? {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return nil }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode & 0o7777))
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
        if close(output) != 0 { failed = true }
        if failed {
            unlink(destination)
            return nil
        }
        return CacheEntry.Blob(hash: ContentDigest(hasher.finalize()).description, size: size)
    }

    /// Writes `bytes` to `destination` (a new file) with `mode`; `false` (nothing left) on error.
    static func write(_ bytes: [UInt8], to destination: String, mode: UInt32) -> Bool {
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode & 0o7777))
        guard output >= 0 else { return false }
        let written = writeAll(output, bytes, count: bytes.count) && fchmod(output, mode_t(mode & 0o7777)) == 0
        let closed = close(output) == 0
        if !(written && closed) { unlink(destination) }
        return written && closed
    }

    /// The whole file, if its SHA-256 is `blob`'s.
    static func read(_ path: String, expecting blob: CacheEntry.Blob) -> [UInt8]? {
        guard let bytes = readAll(path), Int64(bytes.count) == blob.size, Hex.sha256(bytes) == blob.hash else {
            return nil
        }
        return bytes
    }

    static func readAll(_ path: String) -> [UInt8]? {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return nil }
        defer { close(input) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress!, chunk) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
        }
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
