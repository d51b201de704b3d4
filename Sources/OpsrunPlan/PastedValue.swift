/// A variable's value as a shown command pastes it in place of `$NAME`: so that the shell, reading
/// the shown command, would get the words the real run gets from the variable. The shell does not
/// read a value's quotes, `$`, `;` or backslashes again, so neither may the shown text.
enum PastedValue {
    /// Where the variable is in the command.
    enum Place {
        /// Outside quotes: the value is split into fields at blanks, and each field globbed.
        case unquoted
        /// Outside quotes in a word that looks like an assignment (`FLAGS=$CFLAGS`): whether the
        /// value is split depends on whether the word is one.
        case assignment
        case doubleQuotes
        /// In the body of a here-document whose delimiter is not quoted.
        case hereDocument
    }

    /// The text to paste, or nil when none reads the same and the variable stays as written.
    static func text(_ value: String, in place: Place) -> String? {
        switch place {
        case .doubleQuotes:
            return escaping(in: value) { $0 == UInt8(ascii: "\"") || isSpecialInHereDocument($0) }
        case .hereDocument: return escaping(in: value, isSpecialInHereDocument)
        case .assignment:
            // Split in `make FLAGS=$CFLAGS`, not in `FLAGS=$CFLAGS make`: rather than tell the
            // two apart, a value with blanks or special characters stays as written.
            return value.utf8.contains { isSpecial($0) || ShellSyntax.isBlank($0) } ? nil : value
        case .unquoted: return fields(of: value)
        }
    }

    /// `value` with a backslash before each byte that `isSpecial`.
    static func escaping(in value: String, _ isSpecial: (UInt8) -> Bool) -> String {
        guard value.utf8.contains(where: isSpecial) else { return value }
        var out: [UInt8] = []
        for byte in value.utf8 {
            if isSpecial(byte) { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// What the shell reads as syntax in a here-document's body (and in double quotes, with `"`).
    static func isSpecialInHereDocument(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "`")
    }

    /// Outside quotes: each field the shell would read differently put in single quotes, which
    /// keeps the words as they were and shows the value whole (`'-DNAME="x"'`), and the fields
    /// joined by spaces (a newline between them would end the command). A field holding both a
    /// special character and a glob character (`*`, `?`, `[`) makes it nil: quoting would stop the
    /// shell globbing it.
    static func fields(of value: String) -> String? {
        let bytes = Array(value.utf8)
        guard bytes.contains(where: { isSpecial($0) || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "#") }) else {
            return value
        }
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if ShellSyntax.isBlank(bytes[i]) {
                out.append(bytes[i] == UInt8(ascii: "\n") ? UInt8(ascii: " ") : bytes[i])
                i += 1
                continue
            }
            let end = bytes[i...].firstIndex(where: ShellSyntax.isBlank) ?? bytes.count
            let field = bytes[i..<end]
            // `#` starting a word would start a comment.
            if field.contains(where: isSpecial) || field.first == UInt8(ascii: "#") {
                guard !field.contains(where: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") })
                else { return nil }
                out.append(UInt8(ascii: "'"))
                for byte in field {
                    if byte == UInt8(ascii: "'") { out += Array("'\\''".utf8) } else { out.append(byte) }
                }
                out.append(UInt8(ascii: "'"))
            } else {
                out += field
            }
            i = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A byte the shell reads as syntax when it reads the command, not as itself: quotes, `$`,
    /// backquote, backslash, operators, `~` (a home directory), `{` `}` (bash's `{a,b}`), `!`.
    static func isSpecial(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "$"), UInt8(ascii: "`"), UInt8(ascii: "\\"),
            UInt8(ascii: ";"), UInt8(ascii: "&"), UInt8(ascii: "|"), UInt8(ascii: "<"), UInt8(ascii: ">"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "~"),
            UInt8(ascii: "!"):
            true
        default: false
        }
    }
}
