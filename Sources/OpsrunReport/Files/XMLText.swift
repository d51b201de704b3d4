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

    /// Where an escape goes on with the printable ASCII character `scalar`.
    private static func next(after escape: Escape, _ scalar: Unicode.Scalar) -> Escape {
        switch escape {
        case .stringEscape where scalar == "\\":
            return .none
        case .started, .stringEscape:
            switch scalar {
            case "[": return .controlSequence
            case "]", "P", "X", "^", "_": return .string
            case _ where scalar.value <= 0x2F: return .intermediates
            default: return .none  // a two-character escape: `ESC 7`, `ESC M`
            }
        case .intermediates:
            return scalar.value >= 0x30 ? .none : .intermediates
        case .controlSequence:
            return scalar.value >= 0x40 ? .none : .controlSequence
        case .none, .string:
            return escape
        }
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
            case .string:
                if scalar == "\u{07}" {
                    escape = .none
                    continue
                }
                if scalar == "\u{1B}" {
                    escape = .stringEscape
                    continue
                }
                if printableASCII || value >= 0x80 { continue }
                escape = .none  // a control character ends the string and stays text
            case .started, .stringEscape, .intermediates, .controlSequence:
                guard printableASCII else {
                    escape = .none  // ends the escape; the character stays text
                    break
                }
                escape = next(after: escape, scalar)
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
