/// A problem found in user input, with the place it was found.
///
/// The library collects diagnostics; the command line decides how to render them
/// (see `DiagnosticRenderer`).
public struct Diagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error, warning
    }

    public var severity: Severity
    /// Where; `nil` for problems about a file as a whole (e.g. it cannot be read).
    public var location: SourceLocation?
    /// File name for problems without a precise location.
    public var file: String?
    public var message: String
    /// Extra lines printed under the main one, e.g. the edges of a cycle.
    public var notes: [String]

    public init(
        _ severity: Severity = .error, at location: SourceLocation?, file: String? = nil,
        _ message: String, notes: [String] = []
    ) {
        self.severity = severity
        self.location = location
        self.file = file ?? location?.file
        self.message = message
        self.notes = notes
    }

    public static func error(_ message: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.error, at: location, message)
    }

    /// `Tasksfile.yaml:12:7: error: message` — the first line as printed.
    public var description: String {
        if let location { return "\(location): \(severity.rawValue): \(message)" }
        if let file { return "\(file): \(severity.rawValue): \(message)" }
        return "\(severity.rawValue): \(message)"
    }
}

extension Diagnostic {
    /// The order messages are printed in: those without a place first, then by file, line and
    /// column.
    public static func byPlace(_ a: Diagnostic, _ b: Diagnostic) -> Bool {
        guard let first = a.location, let second = b.location else { return a.location == nil && b.location != nil }
        return first < second
    }
}

/// Diagnostics found while reading or checking input; thrown when any is an error.
public struct DiagnosticList: Error, Sendable {
    public var diagnostics: [Diagnostic]
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
}
