// A file name is whatever bytes its creator chose, escape sequences included: printed raw, a name
// could recolour, retitle or clear the user's terminal. Where opsrun shows names it did not write
// (the files a depfile lists, a source that changed), control characters are shown as Swift writes
// them in a string literal (`\u{1B}`, `\n`), as the error about an `each` value with one does.

/// Text made safe to print on a terminal.
public enum TerminalText {
    /// `text` with each control character (C0, DEL, C1) written as an escape: `e\u{1B}[31m.h`.
    /// Text without one is returned as it is, without a copy.
    public static func escapingControlCharacters(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            case _ where isControl(scalar): out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
