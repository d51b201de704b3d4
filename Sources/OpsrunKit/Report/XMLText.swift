/// Text made safe for XML 1.0, for `--junit`.
///
/// The special characters become entities, and what XML 1.0 cannot hold at all is left out:
/// terminal escapes whole (ECMA-48: `ESC [ 31 m`, `ESC ( B`, and strings such as the title or
/// link `ESC ] … BEL`), and every other control character but tab, line feed and carriage return.
/// An escape cut short by a control character or a non-ASCII one ends there, and that character
/// is kept as text: a broken escape never swallows a line.
enum XMLText {
    /// Element content.
    static func content(_ text: String) -> String { escaped(text, inAttribute: false) }

    /// An attribute value: also line breaks and tabs as character references, which an XML reader
    /// would otherwise turn into spaces.
    static func attribute(_ text: String) -> String { escaped(text, inAttribute: true) }

    private enum Escape {
        case none
        /// Just after ESC.
        case started
        /// `ESC` and intermediates (0x20–0x2F), until a final character (0x30–0x7E): `ESC ( B`.
        case intermediates
        /// `ESC [`: parameters and intermediates until a final character (0x40–0x7E).
        case controlSequence
        /// `ESC ]`, `ESC P`, `ESC X`, `ESC ^`, `ESC _`: printable text until BEL or `ESC \`.
        case string
        /// ESC inside a string: `\` ends the string, anything else begins a new escape.
        case stringEscape
    }

    private static func escaped(_ text: String, inAttribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var escape = Escape.none
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let printableASCII = (0x20...0x7E).contains(value)
            switch escape {
            case .none:
                break
            case .started, .stringEscape:
                if escape == .stringEscape && scalar == "\\" {
                    escape = .none
                    continue
                }
                guard printableASCII else {
                    escape = .none
                    break
                }
                switch scalar {
                case "[": escape = .controlSequence
                case "]", "P", "X", "^", "_": escape = .string
                case _ where value <= 0x2F: escape = .intermediates
                default: escape = .none  // a two-character escape: `ESC 7`, `ESC M`
                }
                continue
            case .intermediates:
                guard printableASCII else {
                    escape = .none
                    break
                }
                if value >= 0x30 { escape = .none }
                continue
            case .controlSequence:
                guard printableASCII else {
                    escape = .none
                    break
                }
                if value >= 0x40 { escape = .none }
                continue
            case .string:
                if scalar == "\u{07}" {
                    escape = .none
                    continue
                }
                if scalar == "\u{1B}" {
                    escape = .stringEscape
                    continue
                }
                guard printableASCII || value >= 0x80 else {
                    escape = .none
                    break
                }
                continue
            }
            switch scalar {
            case "\u{1B}": escape = .started
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t": out += inAttribute ? "&#9;" : "\t"
            case "\n": out += inAttribute ? "&#10;" : "\n"
            case "\r": out += inAttribute ? "&#13;" : "\r"
            default:
                if value < 0x20 || value == 0xFFFE || value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
