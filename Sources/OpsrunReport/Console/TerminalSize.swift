#if canImport(Glibc)
    import Glibc
#endif

/// The size of the terminal behind a file descriptor.
enum TerminalSize {
    /// Columns of the terminal on `fileDescriptor` (`TIOCGWINSZ`), or 80 when it cannot say.
    static func columns(of fileDescriptor: Int32) -> Int {
        var size = winsize()
        guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
            return 80
        }
        return Int(size.ws_col)
    }
}
