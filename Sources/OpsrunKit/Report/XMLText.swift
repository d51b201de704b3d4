/// Text made safe for XML 1.0, for `--junit`.
///
/// The special characters become entities, and what XML 1.0 cannot hold at all is left out:
/// terminal escapes whole (`ESC [ 31 m`, and `ESC ] … BEL` titles and links), and every other
/// control character but tab, line feed and carriage return.
enum XMLText {
    /// Element content.
    static func content(_ text: String) -> String { escaped(text, inAttribute: false) }

    /// An attribute value: also line breaks and tabs as character references, which an XML reader
    /// would otherwise turn into spaces.
    static func attribute(_ text: String) -> String { escaped(text, inAttribute: true) }

    private enum Escape { case none, started, controlSequence, operatingSystemCommand, stringEnd }

    private static func escaped(_ text: String, inAttribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var escape = Escape.none
        for scalar in text.unicodeScalars {
            switch escape {
            case .none:
                break
            case .started:
                // `ESC [` begins a control sequence, `ESC ]` an operating-system command; any
                // other character after ESC ends the escape with it.
                escape = scalar == "[" ? .controlSequence : scalar == "]" ? .operatingSystemCommand : .none
                continue
            case .controlSequence:
                // Parameters and intermediates until a final byte in @...~.
                if (0x40...0x7E).contains(scalar.value) { escape = .none }
                continue
            case .operatingSystemCommand:
                // Until BEL, or the string terminator `ESC \`.
                if scalar == "\u{07}" { escape = .none } else if scalar == "\u{1B}" { escape = .stringEnd }
                continue
            case .stringEnd:
                escape = .none
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
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
