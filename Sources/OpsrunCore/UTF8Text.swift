#if canImport(Glibc)
    import Glibc
#endif

/// Bytes read as UTF-8 text the way a manifest is: a leading byte order mark dropped, and the place
/// of the first byte that is not UTF-8 when some is.
public enum UTF8Text {
    /// Whether `text` holds `byte` (an ASCII character): one `memchr` over the bytes in place.
    /// Walking the `utf8` view cost about 370 instructions for a short path, and a run asks it of
    /// every task's sources, outputs and directory (`$` in them?): 10,000 tasks, 20,000 times.
    public static func contains(_ byte: UInt8, in text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.count > 0 && memchr(bytes.baseAddress!, Int32(byte), bytes.count) != nil
        } ?? text.utf8.contains(byte)
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes (file names as `ls` orders them with
    /// `LC_ALL=C`; never a locale's order, so a plan is the same on every machine). One `memcmp`:
    /// walking the two `utf8` views a byte at a time cost about 1,000 instructions a pair, 2.4 M
    /// of a 300-file no-op's 44 M for sorting one glob (callgrind).
    public static func precedes(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
        return (fast ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// The UTF-8 byte order mark, which some Windows editors write at the start of a file.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Whether `bytes` start with a byte order mark.
    public static func startsWithByteOrderMark(_ bytes: [UInt8]) -> Bool {
        // By index, not the generic `starts(with:)`: see `joined`.
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    /// `parts.joined(separator:)` without the standard library's generic code, whose first call
    /// makes the runtime look up a conformance by scanning all 9,000 of the binary's conformance
    /// records (about 250,000 instructions). Every run used three such calls on its way (this
    /// one, a path's components appended to a string and the byte order mark test): together an
    /// eighth of a one-task no-op's instructions.
    public static func joined(_ parts: [String], separator: String) -> String {
        var text = ""
        for (index, part) in parts.enumerated() {
            if index > 0 { text += separator }
            text += part
        }
        return text
    }

    /// `bytes` without a leading byte order mark.
    public static func content(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        bytes.dropFirst(startsWithByteOrderMark(bytes) ? byteOrderMark.count : 0)
    }

    /// `bytes` as text without a leading byte order mark, or `nil` when they are not UTF-8.
    public static func text(_ bytes: [UInt8]) -> String? {
        // Dropping the mark here, once, means the parser, its columns and the quoted source line
        // all see the text the user sees in the editor.
        String(validating: content(bytes), as: UTF8.self)
    }

    /// The 1-based line and column (in characters, as the parser counts, a leading byte order mark
    /// not counted) of the first byte that is not UTF-8, and that byte; `nil` when there is none.
    public static func firstInvalidByte(in bytes: [UInt8]) -> (line: Int, column: Int, byte: UInt8)? {
        var offset = startsWithByteOrderMark(bytes) ? byteOrderMark.count : 0
        var iterator = bytes[offset...].makeIterator()
        var decoder = Unicode.UTF8()
        var line = 1
        var column = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
                if scalar == "\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            case .emptyInput:
                return nil
            case .error:
                return (line, column, bytes[offset])
            }
        }
    }
}
