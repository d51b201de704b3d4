/// Renders diagnostics as compilers do: the located message, then the source line and a caret.
///
/// ```
/// Tasksfile.yaml:12:7: error: unknown key 'dpes' in task 'build'; did you mean 'deps'?
///     dpes: [compile]
///     ^
/// ```
public struct DiagnosticRenderer: Sendable {
    /// The manifest's text by the file name its locations use.
    private var sources: [String: [Substring]]

    public init(sources: [String: String] = [:]) {
        // Split on bytes: in Swift "\r\n" is one Character, so splitting on "\n" would miss CRLF lines.
        self.sources = sources.mapValues { text in
            text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Substring($0) }
        }
    }

    public func render(_ diagnostic: Diagnostic) -> String {
        var out = diagnostic.description
        if let location = diagnostic.location, let lines = sources[location.file],
            location.line >= 1, location.line <= lines.count
        {
            var line = lines[location.line - 1]
            if line.hasSuffix("\r") { line.removeLast() }
            out += "\n" + Self.quote(line, column: location.column)
        }
        for note in diagnostic.notes { out += "\n" + note }
        return out
    }

    /// The most characters of a line quoted: a minified or generated line can be megabytes.
    static let quoteWidth = 120

    /// `line` (or the `quoteWidth` characters of it around `column`, cut ends shown as `...`),
    /// then a caret under `column`. Columns count Unicode scalars, as libyaml does.
    static func quote(_ line: Substring, column: Int) -> String {
        let scalars = line.unicodeScalars
        let count = scalars.count
        let caret = min(max(0, column - 1), count)
        var start = 0
        var end = count
        if count > quoteWidth {
            end = min(count, max(0, caret - quoteWidth / 2) + quoteWidth)
            start = end - quoteWidth
        }
        let from = scalars.index(scalars.startIndex, offsetBy: start)
        let to = scalars.index(from, offsetBy: end - start)
        let at = scalars.index(from, offsetBy: caret - start)
        var out = start > 0 ? "..." : ""
        out.unicodeScalars += scalars[from..<to]
        out += end < count ? "...\n" : "\n"
        if start > 0 { out += "   " }
        // Keep tabs so the caret lines up under the same characters.
        for scalar in scalars[from..<at] { out += scalar == "\t" ? "\t" : " " }
        return out + "^"
    }

    public func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map(render).joined(separator: "\n")
    }
}
