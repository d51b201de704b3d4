#if canImport(Glibc)
    import Glibc
#endif

/// Writes whole buffers to a file descriptor with `write(2)`, unbuffered and without Foundation.
///
/// The executable makes the ones for standard output and error and hands them to the `Status`.
public struct FileDescriptorWriter: Sendable {
    public let fileDescriptor: Int32

    public init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// Whether the descriptor is a terminal.
    public var isTerminal: Bool { isatty(fileDescriptor) == 1 }

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes all of `buffer`, retrying after interrupts and short writes; gives up on other errors
    /// (a closed pipe must not crash or hang a run).
    public func write(_ buffer: UnsafeRawBufferPointer) {
        guard var base = buffer.baseAddress else { return }
        var left = buffer.count
        while left > 0 {
            let n = Glibc.write(fileDescriptor, base, left)
            if n > 0 {
                base += n
                left -= n
            } else if n < 0 && (errno == EINTR || errno == EAGAIN) {
                if errno == EAGAIN { var p = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0); _ = poll(&p, 1, 100) }
            } else {
                return
            }
        }
    }
}
