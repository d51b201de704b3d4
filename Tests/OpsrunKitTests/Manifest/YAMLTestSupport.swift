import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunManifest

/// Helpers for reading inline YAML in tests.
enum YAMLTest {
    /// Parses `text` as `Tasksfile.yaml`, failing the test on errors.
    static func parse(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> YAMLNode? {
        do {
            return try YAMLDocument.parse(text, file: "Tasksfile.yaml")
        } catch {
            Issue.record("unexpected errors: \(error.diagnostics.map(\.description))", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The diagnostics parsing `text` throws, as printed; empty when it parses.
    static func errors(_ text: String, expansionLimit: Int = YAMLDocument.defaultExpansionLimit) -> [String] {
        do {
            _ = try YAMLDocument.parse(text, file: "Tasksfile.yaml", expansionLimit: expansionLimit)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }
}

extension YAMLNode {
    /// The value under `key` when this is a mapping.
    subscript(key: String) -> YAMLNode? {
        guard case .mapping(let entries) = content else { return nil }
        return entries.first { $0.key == key }?.value
    }

    /// The keys of a mapping, in order.
    var keys: [String] {
        guard case .mapping(let entries) = content else { return [] }
        return entries.map(\.key)
    }

    /// The items of a list.
    var items: [YAMLNode] {
        guard case .sequence(let items) = content else { return [] }
        return items
    }

    /// `line:column`, short for assertions.
    var at: String { "\(location.line):\(location.column)" }
}
