/// The end of a task's output, both streams as they came, for `--junit`: what a failed test case
/// shows. Bounded, so a task that prints gigabytes costs at most twice `byteLimit` here.
struct OutputTail {
    /// At most this many bytes are shown, and at most `lineLimit` lines.
    static let byteLimit = 16 * 1024
    static let lineLimit = 100

    private var bytes: [UInt8] = []
    /// Whether bytes were dropped from the front of `bytes`, and whether the last one dropped
    /// ended a line (then `bytes` begins with a whole line).
    private var cut = false
    private var cutAtLineEnd = false

    mutating func append(_ chunk: [UInt8]) {
        bytes += chunk
        // Trimmed in steps of `byteLimit` rather than on every chunk, so appending stays linear.
        if bytes.count > 2 * Self.byteLimit {
            let dropped = bytes.count - Self.byteLimit
            cutAtLineEnd = bytes[dropped - 1] == UInt8(ascii: "\n")
            bytes.removeFirst(dropped)
            cut = true
        }
    }

    /// The last `lineLimit` lines within `byteLimit` bytes, decoded as UTF-8 (invalid bytes become
    /// U+FFFD), beginning with a whole line; a first line says when earlier output was left out.
    var text: String {
        let newline = UInt8(ascii: "\n")
        var start = max(0, bytes.count - Self.byteLimit)
        var cut = self.cut || start > 0
        // Count lines back from the end; a final newline does not start another line.
        var lines = 0
        var index = bytes.count - 1
        if index >= 0 && bytes[index] == newline { index -= 1 }
        while index >= start {
            if bytes[index] == newline {
                lines += 1
                if lines == Self.lineLimit {
                    start = index + 1
                    cut = true
                    break
                }
            }
            index -= 1
        }
        let startsMidLine = cut && (start == 0 ? !cutAtLineEnd : bytes[start - 1] != newline)
        if startsMidLine {
            // Begin after the first newline; with none left to begin after, at least not inside
            // a character (UTF-8 continuation bytes are 10xxxxxx).
            if let first = bytes[start...].firstIndex(of: newline), first + 1 < bytes.count {
                start = first + 1
            } else {
                while start < bytes.count && bytes[start] & 0xC0 == 0x80 { start += 1 }
            }
        }
        let body = String(decoding: bytes[start...], as: UTF8.self)
        return cut ? "[… earlier output left out]\n" + body : body
    }
}
