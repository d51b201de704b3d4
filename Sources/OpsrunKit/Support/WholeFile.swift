#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file into one buffer of its size: for the large files read on every run (a
/// megabyte of manifest and its cache), growing an array 64 KiB at a time costs a copy per step and
/// was a fifth of a manifest-cache hit.
public enum WholeFile {
    /// The file's bytes, or `nil` with `errno` set.
    public static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        var failed = false
        // One byte more than the size, so a file that grew since `fstat` is noticed.
        let bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, count in
            count = 0
            while count < buffer.count {
                let n = Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
                if n > 0 {
                    count += n
                } else if n == 0 {
                    return
                } else if errno != EINTR {
                    failed = true
                    return
                }
            }
        }
        if failed { return nil }
        return bytes.count > size ? FileText.readBytes(path) : bytes
    }
}
