import OpsrunCore
/// How `--list`, `--dry-run` and `--graph` print (`--format`).
public enum OutputFormat: String, CaseIterable, Sendable {
    case text, json, dot, mermaid

    /// The error for a format a printer cannot produce, e.g. `--format dot` with `--list`.
    static func unsupported(_ format: OutputFormat, by option: String, supported: [OutputFormat]) -> Diagnostic {
        let names = supported.map { $0.rawValue }.joined(separator: " or ")
        return Diagnostic(.error, at: nil, "--format \(format.rawValue) does not apply to \(option); use \(names)")
    }
}
