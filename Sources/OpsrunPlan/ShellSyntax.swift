import OpsrunManifest

/// Where the pieces of shell syntax that `ShownCommand` copies verbatim end, read from a
/// command's UTF-8 bytes as `sh` reads them. Each function takes the index of the piece's first
/// byte and returns the index just past it, or the end of the command when it is not closed (the
/// shell would report a syntax error; showing the rest verbatim shows nothing wrong).
enum ShellSyntax {
    /// Past the `'` closing the single quotes opened at `start`.
    static func endOfSingleQuotes(_ bytes: [UInt8], at start: Int) -> Int {
        bytes[(start + 1)...].firstIndex(of: UInt8(ascii: "'")).map { $0 + 1 } ?? bytes.count
    }

    /// Past the `"` closing the double quotes opened at `start`; a `"` inside a command
    /// substitution or backquotes or after a backslash does not close them.
    static func endOfDoubleQuotes(_ bytes: [UInt8], at start: Int) -> Int {
        var i = start + 1
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\""): return i + 1
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "`"): i = endOfBackquotes(bytes, at: i)
            case UInt8(ascii: "$") where startsCommandSubstitution(bytes, at: i):
                i = endOfCommandSubstitution(bytes, at: i)
            default: i += 1
            }
        }
        return bytes.count
    }

    /// Past the backquote closing the one at `start`.
    static func endOfBackquotes(_ bytes: [UInt8], at start: Int) -> Int {
        var i = start + 1
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "`"): return i + 1
            case UInt8(ascii: "\\"): i += 2
            default: i += 1
            }
        }
        return bytes.count
    }

    /// Whether a `$(...)` (or `$((...))`) starts at `start`.
    static func startsCommandSubstitution(_ bytes: [UInt8], at start: Int) -> Bool {
        start + 1 < bytes.count && bytes[start] == UInt8(ascii: "$") && bytes[start + 1] == UInt8(ascii: "(")
    }

    /// Past the `)` closing the `$(` at `start`. Parentheses nest; quotes, backquotes and
    /// comments hide theirs; and within `case ... esac` an unopened `)` ends a pattern (`*.c)`),
    /// not the substitution.
    static func endOfCommandSubstitution(_ bytes: [UInt8], at start: Int) -> Int {
        var i = start + 2
        var open = 0
        var cases = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "'"): i = endOfSingleQuotes(bytes, at: i)
            case UInt8(ascii: "\""): i = endOfDoubleQuotes(bytes, at: i)
            case UInt8(ascii: "`"): i = endOfBackquotes(bytes, at: i)
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "#") where startsWord(bytes, at: i): i = endOfLine(bytes, from: i)
            case UInt8(ascii: "("):
                open += 1
                i += 1
            case UInt8(ascii: ")"):
                if open > 0 {
                    open -= 1
                } else if cases == 0 {
                    return i + 1
                }
                i += 1
            default:
                let end = endOfName(bytes, from: i)
                guard end > i else {
                    i += 1
                    continue
                }
                if startsWord(bytes, at: i) && (end == bytes.count || isBlank(bytes[end]) || isOperator(bytes[end])) {
                    let word = bytes[i..<end]
                    if word.elementsEqual("case".utf8) { cases += 1 }
                    if word.elementsEqual("esac".utf8) { cases = max(cases - 1, 0) }
                }
                i = end
            }
        }
        return bytes.count
    }

    /// A here-document's operator read (`<<EOF`, `<<-'EOF'`): its body follows the next newline.
    struct HereDocument {
        /// The delimiter with its quotes taken away: the line that ends the body.
        var delimiter: [UInt8]
        /// `<<-`: leading tabs are stripped from the body's lines and the delimiter line.
        var stripsTabs: Bool
        /// Any part of the delimiter quoted or escaped: the shell expands nothing in the body.
        var isQuoted: Bool
    }

    /// The here-document whose `<<` is at `start`, and the index past its delimiter word; nil
    /// for a here-string (`<<<`) or a `<<` with no word after it.
    static func hereDocument(_ bytes: [UInt8], at start: Int) -> (HereDocument, end: Int)? {
        var i = start + 2
        guard i < bytes.count, bytes[start + 1] == UInt8(ascii: "<"), bytes[i] != UInt8(ascii: "<") else { return nil }
        let stripsTabs = bytes[i] == UInt8(ascii: "-")
        if stripsTabs { i += 1 }
        while i < bytes.count, bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") { i += 1 }
        var delimiter: [UInt8] = []
        var isQuoted = false
        while i < bytes.count, !isBlank(bytes[i]), !isOperator(bytes[i]) {
            switch bytes[i] {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                let quote = bytes[i]
                let close = bytes[(i + 1)...].firstIndex(of: quote) ?? bytes.count
                delimiter += bytes[(i + 1)..<close]
                isQuoted = true
                i = min(close + 1, bytes.count)
            case UInt8(ascii: "\\"):
                if i + 1 < bytes.count { delimiter.append(bytes[i + 1]) }
                isQuoted = true
                i += 2
            default:
                delimiter.append(bytes[i])
                i += 1
            }
        }
        guard !delimiter.isEmpty || isQuoted else { return nil }
        return (HereDocument(delimiter: delimiter, stripsTabs: stripsTabs, isQuoted: isQuoted), min(i, bytes.count))
    }

    /// The body of `document` starting at `start` (the start of the line after its operator's),
    /// and the index past its delimiter line (the end of the command when there is none).
    static func body(of document: HereDocument, _ bytes: [UInt8], from start: Int) -> (body: Range<Int>, end: Int) {
        var line = start
        while line < bytes.count {
            let lineEnd = bytes[line...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            var text = line
            if document.stripsTabs {
                while text < lineEnd, bytes[text] == UInt8(ascii: "\t") { text += 1 }
            }
            if bytes[text..<lineEnd].elementsEqual(document.delimiter) {
                return (start..<line, min(lineEnd + 1, bytes.count))
            }
            line = lineEnd + 1
        }
        return (start..<bytes.count, bytes.count)
    }

    /// Past the `<`s of the redirection at `start` (`<`, `<<`, `<<<`), to read a here-string's
    /// `<<<` whole rather than as a here-document's `<<` after a `<`.
    static func endOfLessThanSigns(_ bytes: [UInt8], at start: Int) -> Int {
        bytes[start...].firstIndex { $0 != UInt8(ascii: "<") } ?? bytes.count
    }

    /// Whether the byte at `index` begins a word: first, or after a blank or an operator (where
    /// a `#` begins a comment).
    static func startsWord(_ bytes: [UInt8], at index: Int) -> Bool {
        index == 0 || isBlank(bytes[index - 1]) || isOperator(bytes[index - 1])
    }

    /// Space, tab or newline: what separates words.
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
    }

    /// A byte that ends a word by itself: `;`, `&`, `|`, `(`, `)`, `<`, `>`.
    static func isOperator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ";"), UInt8(ascii: "&"), UInt8(ascii: "|"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "<"), UInt8(ascii: ">"):
            true
        default: false
        }
    }

    /// The index of the newline ending the line `start` is on (the end of the command when none).
    static func endOfLine(_ bytes: [UInt8], from start: Int) -> Int {
        bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
    }

    /// Past the name (letters, digits, `_`, not a digit first) at `start`; `start` when none.
    static func endOfName(_ bytes: [UInt8], from start: Int) -> Int {
        guard start < bytes.count, Interpolation.isNameByte(bytes[start], first: true) else { return start }
        return bytes[start...].firstIndex { !Interpolation.isNameByte($0, first: false) } ?? bytes.count
    }
}
