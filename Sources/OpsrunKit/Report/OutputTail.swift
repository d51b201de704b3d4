/// The end of a task's output, both streams as they came, for `--junit`: what a failed test case
/// shows. Bounded, so a task that prints gigabytes costs at most twice `byteLimit` here.
struct OutputTail {
    /// At most this many bytes are shown, and at most `lineLimit` lines.
    static let byteLimit = 16 * 1024
    static let lineLimit = 100

    private var bytes: [UInt8] = []
    /// Whether bytes were dropped from the front: the text then starts with a note saying so.
    private var cut = false

    mutating func append(_ chunk: [UInt8]) {
        bytes += chunk
        // Trimmed in steps of `byteLimit` rather than on every chunk, so appending stays linear.
        if bytes.count > 2 * Self.byteLimit {
            bytes.removeFirst(bytes.count - Self.byteLimit)
            cut = true
        }
    }

    /// The last `lineLimit` lines within `byteLimit` bytes, decoded as UTF-8 (invalid bytes become
    /// U+FFFD); a first line says when earlier output was left out.
    var text: String {
        var start = max(0, bytes.count - Self.byteLimit)
        var cut = self.cut || start > 0
        // Count lines back from the end; a final newline does not start another line.
        var lines = 0
        var index = bytes.count - 1
        if index >= 0 && bytes[index] == UInt8(ascii: "\n") { index -= 1 }
        while index >= start {
            if bytes[index] == UInt8(ascii: "\n") {
                lines += 1
                if lines == Self.lineLimit {
                    start = index + 1
                    cut = true
                    break
                }
            }
            index -= 1
        }
        if cut && start > 0 && start < bytes.count && bytes[start - 1] != UInt8(ascii: "\n") {
            // Begin at a whole line when the byte limit fell inside one.
            if let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")), newline + 1 < bytes.count {
                start = newline + 1
            }
        }
        let body = String(decoding: bytes[start...], as: UTF8.self)
        return cut ? "[… earlier output left out]\n" + body : body
    }
}
