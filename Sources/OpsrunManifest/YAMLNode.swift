import OpsrunCore
/// A YAML node as the manifest loader sees it: plain Swift values with 1-based positions.
///
/// Scalars are kept as written: `yes`, `on`, `0755` and `1.10` are strings, and the loader decides
/// what a key's value may be. Aliases are already expanded and `<<` merge keys already applied.
public struct YAMLNode: Sendable {
    public enum Content: Sendable {
        case scalar(String, style: ScalarStyle)
        case sequence([YAMLNode])
        case mapping([YAMLMappingEntry])
    }

    public enum ScalarStyle: Sendable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    public var content: Content
    public var location: SourceLocation

    public init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    /// The scalar's text, or `nil` for a sequence or mapping.
    public var scalar: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// An empty plain scalar, `~` or `null`: YAML's ways of writing nothing.
    public var isNull: Bool {
        guard case .scalar(let text, .plain) = content else { return false }
        // By length first: an unequal string comparison is the slow kind, and most scalars are text.
        switch text.utf8.count {
        case 0: return true
        case 1: return text == "~"
        case 4: return text == "null"
        default: return false
        }
    }

    /// What the node is, in words for error messages: "a list", "a mapping", "a string".
    public var kindDescription: String {
        switch content {
        case .scalar: return isNull ? "empty" : "a string"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}

/// One `key: value` pair of a mapping; the key keeps its own position for error messages.
public struct YAMLMappingEntry: Sendable {
    public var key: String
    public var keyLocation: SourceLocation
    public var value: YAMLNode

    public init(key: String, keyLocation: SourceLocation, value: YAMLNode) {
        self.key = key
        self.keyLocation = keyLocation
        self.value = value
    }
}
