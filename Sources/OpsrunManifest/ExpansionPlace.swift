import OpsrunCore
/// Where in the manifest's text a reference inside a value was written, so that an error about
/// `${X/a/b}` points at its `${`, not at the start of the value.
///
/// A value's text is not always its source (quotes, escapes, folded lines), so the place is
/// found in the source and checked: the value's `n`th `${` is looked for as the `n`th `${` written
/// from the value's place onwards, and taken only when the reference as written is there. Otherwise
/// (an escape inside the reference, say) the value's own place is the answer.
package enum ExpansionPlace {
    /// The place of `problem`'s reference in `template`, a value written at `location` (or
    /// after it: an `env` entry's place is its key's) in `text`, the manifest's source.
    package static func locate(
        _ problem: Interpolation.Problem, in template: String, at location: SourceLocation, text: String?
    ) -> SourceLocation {
        guard let text, location.line >= 1, location.column >= 1 else { return location }
        let value = Array(template.utf8)
        guard problem.offset <= value.count else { return location }
        let occurrence = count(dollarBraces: value[..<problem.offset])
        let source = Array(text.utf8)
        guard var index = offset(of: location, in: source) else { return location }
        var seen = 0
        while index + 1 < source.count {
            if source[index] == UInt8(ascii: "$") && source[index + 1] == UInt8(ascii: "{") {
                if seen == occurrence { break }
                seen += 1
            }
            index += 1
        }
        guard index + 1 < source.count else { return location }
        // The reference as written must be there (up to where the message shortened it).
        let written = Array(problem.reference.utf8.prefix { $0 != UInt8(ascii: ".") }.prefix(24))
        guard source[index...].starts(with: written.isEmpty ? [UInt8(ascii: "$")] : written) else { return location }
        return place(of: index, in: source, file: location.file)
    }

    /// The place of `written` (a `$NAME` without braces), looked for in `text` from the place of
    /// the value it is in; the value's own place when it is not found there.
    package static func locate(_ written: String, at location: SourceLocation, text: String?) -> SourceLocation {
        guard let text, location.line >= 1, location.column >= 1 else { return location }
        let source = Array(text.utf8)
        let needle = Array(written.utf8)
        guard !needle.isEmpty, var index = offset(of: location, in: source) else { return location }
        // Within the value: a long one (a folded list) is still far shorter than this.
        let end = min(source.count, index + 4096)
        while index + needle.count <= end {
            if source[index..<(index + needle.count)].elementsEqual(needle) {
                return place(of: index, in: source, file: location.file)
            }
            index += 1
        }
        return location
    }

    private static func count(dollarBraces bytes: ArraySlice<UInt8>) -> Int {
        var count = 0
        var previous: UInt8 = 0
        for byte in bytes {
            if previous == UInt8(ascii: "$") && byte == UInt8(ascii: "{") { count += 1 }
            previous = byte
        }
        return count
    }

    /// The byte offset of a 1-based line and column (columns count characters, as libyaml does).
    private static func offset(of location: SourceLocation, in source: [UInt8]) -> Int? {
        var index = 0
        var line = 1
        while line < location.line {
            guard let newline = source[index...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            index = newline + 1
            line += 1
        }
        var column = 1
        while column < location.column {
            guard index < source.count, source[index] != UInt8(ascii: "\n") else { return nil }
            index += 1
            // Continuation bytes of a UTF-8 sequence are part of the same character.
            while index < source.count, source[index] & 0xC0 == 0x80 { index += 1 }
            column += 1
        }
        return index
    }

    private static func place(of offset: Int, in source: [UInt8], file: String) -> SourceLocation {
        var line = 1
        var lineStart = 0
        for index in 0..<offset where source[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        let column = source[lineStart..<offset].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return SourceLocation(file: file, line: line, column: column)
    }
}
