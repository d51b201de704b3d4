import OpsrunCore
/// Reads `dotenv:` files: `KEY=VALUE` lines, as Docker Compose and most dotenv libraries write them.
///
/// ```
/// # comment
/// export PATH_PREFIX=/opt        # `export ` is optional; a ` #` starts a comment
/// GREETING="hello\nworld"        # double quotes: \n \t \r \" \\ \$ escapes
/// RAW='no $escapes here'         # single quotes: taken literally
/// URL=http://${HOST:-localhost}  # ${NAME} expanded as in `env` values (not in single quotes)
/// ```
public enum DotenvFile {
    /// KEY=VALUE lines; `#` comments, blank lines, optional `export `, single/double quoted values (double: \n escapes). Bad lines → Diagnostic with file:line:col.
    /// `${NAME}` in a value that is not single-quoted is expanded in the forms of `env` values:
    /// `lookup` first (opsrun's own environment, which wins over a dotenv file), then the file's
    /// earlier lines, then `fallback` (the files before it, which a later file overrides).
    public static func parse(
        _ text: String, file: String, lookup: (String) -> String? = { _ in nil },
        fallback: (String) -> String? = { _ in nil }
    ) throws(DiagnosticList) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var diagnostics: [Diagnostic] = []
        var earlier: [String: String] = [:]
        // Split bytes, not Characters: "\r\n" is one Character and would not split on "\n".
        for (index, rawLine) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            var line = rawLine
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            switch parseLine(line) {
            case .blank: break
            case .entry(let name, let template):
                do {
                    let value = try Interpolation.expand(template) { lookup($0) ?? earlier[$0] ?? fallback($0) }
                    earlier[name] = value
                    result.append((name, value))
                } catch {
                    let start = String(decoding: rawLine.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self).count + 2
                    diagnostics.append(.error(
                        error.message(in: "the value of '\(name)'"), at: SourceLocation(file: file, line: index + 1, column: start)))
                }
            case .problem(let message, let offset):
                let column = String(decoding: rawLine.prefix(offset), as: UTF8.self).count + 1
                diagnostics.append(.error(message, at: SourceLocation(file: file, line: index + 1, column: column)))
            }
        }
        if !diagnostics.isEmpty { throw DiagnosticList(diagnostics) }
        return result
    }

    enum Line {
        case blank
        /// The value as a template of `Interpolation`: a `$` that must stay one is written `$$`.
        case entry(String, String)
        /// `offset` is the byte offset in the line where the problem is.
        case problem(String, offset: Int)
    }

    static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    static func parseLine(_ line: Substring.UTF8View.SubSequence) -> Line {
        let base = line.startIndex
        func offset(_ i: Substring.UTF8View.Index) -> Int { line.distance(from: base, to: i) }
        var rest = line.drop(while: isBlank)
        if rest.isEmpty || rest.first == UInt8(ascii: "#") { return .blank }
        if rest.starts(with: "export".utf8), let after = rest.dropFirst(6).first, isBlank(after) {
            rest = rest.dropFirst(6).drop(while: isBlank)
        }
        let nameEnd = rest.firstIndex { $0 == UInt8(ascii: "=") || isBlank($0) } ?? rest.endIndex
        let name = Substring(rest[rest.startIndex..<nameEnd])
        var afterName = rest[nameEnd...].drop(while: isBlank)
        guard afterName.first == UInt8(ascii: "=") else {
            return .problem("expected NAME=VALUE, but this line has no '=' after the name", offset: offset(rest.startIndex))
        }
        guard ManifestNames.isEnvironmentName(name) else {
            return .problem(
                "invalid variable name '\(name)'; use letters, digits and '_', not starting with a digit",
                offset: offset(rest.startIndex))
        }
        afterName = afterName.dropFirst().drop(while: isBlank)
        guard let quote = afterName.first, quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"") else {
            return .entry(String(name), unquoted(afterName))
        }
        var value: [UInt8] = []
        var i = afterName.index(after: afterName.startIndex)
        var closed = false
        while i < afterName.endIndex {
            let byte = afterName[i]
            if byte == quote {
                closed = true
                break
            }
            if quote == UInt8(ascii: "\""), byte == UInt8(ascii: "\\"), afterName.index(after: i) < afterName.endIndex {
                i = afterName.index(after: i)
                switch afterName[i] {
                case UInt8(ascii: "n"): value.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "t"): value.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "r"): value.append(UInt8(ascii: "\r"))
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): value.append(afterName[i])
                case UInt8(ascii: "$"): value += [UInt8(ascii: "$"), UInt8(ascii: "$")]
                default: value += [UInt8(ascii: "\\"), afterName[i]]  // unknown escapes stay as written
                }
            } else if quote == UInt8(ascii: "'"), byte == UInt8(ascii: "$") {
                // Taken literally: nothing is expanded in single quotes.
                value += [UInt8(ascii: "$"), UInt8(ascii: "$")]
            } else {
                value.append(byte)
            }
            i = afterName.index(after: i)
        }
        guard closed else {
            return .problem("the value's opening quote is never closed on this line", offset: offset(afterName.startIndex))
        }
        let trailing = afterName[afterName.index(after: i)...].drop(while: isBlank)
        if let first = trailing.first, first != UInt8(ascii: "#") {
            return .problem("unexpected text after the closing quote", offset: offset(trailing.startIndex))
        }
        return .entry(String(name), String(decoding: value, as: UTF8.self))
    }

    /// An unquoted value: up to a ` #` comment, without surrounding blanks.
    static func unquoted(_ text: Substring.UTF8View.SubSequence) -> String {
        var end = text.endIndex
        var previousBlank = true
        for i in text.indices {
            if text[i] == UInt8(ascii: "#"), previousBlank {
                end = i
                break
            }
            previousBlank = isBlank(text[i])
        }
        var value = text[text.startIndex..<end]
        while let last = value.last, isBlank(last) { value = value.dropLast() }
        return String(decoding: value, as: UTF8.self)
    }
}
