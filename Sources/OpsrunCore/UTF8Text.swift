/// Bytes read as UTF-8 text the way a manifest is: a leading byte order mark dropped, and the place
/// of the first byte that is not UTF-8 when some is.
public enum UTF8Text {
    /// The UTF-8 byte order mark, which some Windows editors write at the start of a file.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Whether `bytes` start with a byte order mark.
    public static func startsWithByteOrderMark(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: byteOrderMark)
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
