#if canImport(Glibc)
    import Glibc
#endif
import OpsrunCore

/// Holds a task's output for `--output grouped` until the task ends.
///
/// Up to `memoryLimit` bytes stay in memory; beyond that everything goes to an unlinked
/// temporary file, so a task that prints gigabytes costs disk, not memory, and nothing is lost.
struct OutputSpool {
    private var memory: [UInt8] = []
    private var fileDescriptor: Int32 = -1
    let memoryLimit: Int
    /// Where the temporary file goes (`TMPDIR`, as the executable found it).
    let directory: String

    init(memoryLimit: Int = 1 << 20, directory: String = "/tmp") {
        self.memoryLimit = memoryLimit
        self.directory = directory
    }

    var isEmpty: Bool { memory.isEmpty && fileDescriptor < 0 }

    mutating func append(_ bytes: [UInt8]) {
        if fileDescriptor < 0 && memory.count + bytes.count <= memoryLimit {
            memory += bytes
            return
        }
        if fileDescriptor < 0 {
            fileDescriptor = Self.temporaryFile(in: directory)
            guard fileDescriptor >= 0 else {
                // No temporary file: keep the output in memory rather than lose it.
                memory += bytes
                return
            }
            FileDescriptorWriter(fileDescriptor: fileDescriptor).write(memory)
            memory = []
        }
        FileDescriptorWriter(fileDescriptor: fileDescriptor).write(bytes)
    }

    /// Writes everything held to `writer`, in order, and empties the spool.
    mutating func drain(to writer: FileDescriptorWriter) {
        drain { writer.write($0) }
    }

    /// Hands everything held to `write`, in order and in pieces, and empties the spool.
    mutating func drain(_ write: (UnsafeRawBufferPointer) -> Void) {
        if fileDescriptor >= 0 {
            lseek(fileDescriptor, 0, SEEK_SET)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes {
                    read(fileDescriptor, $0.baseAddress, $0.count)
                }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                chunk.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
            close(fileDescriptor)
            fileDescriptor = -1
        }
        memory.withUnsafeBytes { write($0) }
        memory = []
    }

    /// Drops everything held (a quiet run's successful task), closing the temporary file.
    mutating func discard() {
        if fileDescriptor >= 0 { close(fileDescriptor) }
        fileDescriptor = -1
        memory = []
    }

    /// The last `count` bytes held (for failure annotations), reading back from the file if needed.
    func tail(_ count: Int) -> [UInt8] {
        if fileDescriptor < 0 { return Array(memory.suffix(count)) }
        let end = lseek(fileDescriptor, 0, SEEK_END)
        let start = max(0, Int(end) - count)
        var bytes = [UInt8](repeating: 0, count: Int(end) - start)
        let n = bytes.withUnsafeMutableBytes {
            pread(fileDescriptor, $0.baseAddress, $0.count, off_t(start))
        }
        return n > 0 ? Array(bytes[0..<n]) : []
    }

    private static func temporaryFile(in directory: String) -> Int32 {
        var template = Array("\(directory)/opsrun-output-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd >= 0 {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
        return fd
    }
}
