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
            var line = String(lines[location.line - 1])
            if line.hasSuffix("\r") { line.removeLast() }
            out += "\n" + line + "\n"
            // Keep tabs so the caret lines up under the same characters.
            let lead = line.prefix(max(0, location.column - 1)).map { $0 == "\t" ? "\t" : " " as Character }
            out += String(lead) + "^"
        }
        for note in diagnostic.notes { out += "\n" + note }
        return out
    }

    public func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map(render).joined(separator: "\n")
    }
}
