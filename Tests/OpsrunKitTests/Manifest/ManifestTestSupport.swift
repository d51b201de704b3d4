import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunManifest

/// Helpers for loading inline manifests in tests.
enum ManifestTest {
    /// Loads inline YAML as `Tasksfile.yaml` in `/project`.
    static func load(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Manifest? {
        do {
            return try ManifestLoader.load(text: text, file: "Tasksfile.yaml", directory: "/project")
        } catch {
            Issue.record("unexpected errors: \(error.diagnostics.map(\.description))", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The errors loading `text` reports, as printed (first line of each).
    static func errors(_ text: String) -> [String] {
        do {
            _ = try ManifestLoader.load(text: text, file: "Tasksfile.yaml", directory: "/project")
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    /// `line:column`, short for assertions.
    static func at(_ location: OpsrunCore.SourceLocation) -> String { "\(location.line):\(location.column)" }
}
