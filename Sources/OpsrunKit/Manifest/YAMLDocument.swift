import CYAML

/// Reads YAML text into a `YAMLNode` tree with libyaml. The only file that touches libyaml's C types.
///
/// - Positions are 1-based (libyaml's marks are 0-based).
/// - Aliases are expanded, but the total size of what they expand to is bounded, so a
///   "billion laughs" document is refused quickly instead of exhausting memory.
/// - `<<` merge keys take a mapping or a list of mappings; keys written in the mapping itself win,
///   then earlier merged mappings over later ones.
/// - A key written twice in one mapping is an error.
public enum YAMLDocument {
    /// The most nodes a document may hold once its aliases are expanded.
    public static let defaultExpansionLimit = 1_000_000

    /// Parses `text`; `file` names the source in every location. Throws `DiagnosticList`.
    public static func parse(
        _ text: String, file: String, expansionLimit: Int = defaultExpansionLimit
    ) throws(DiagnosticList) -> YAMLNode? {
        var reader = Reader(file: file, expansionLimit: expansionLimit)
        return try reader.read(text)
    }
}

/// A node being built, with its expanded size for the alias bound.
private struct Sized {
    var node: YAMLNode
    var size: Int
}

private struct Reader {
    let file: String
    let expansionLimit: Int
    var anchors: [String: Sized] = [:]
    var expanded = 0
    var diagnostics: [Diagnostic] = []

    init(file: String, expansionLimit: Int) {
        self.file = file
        self.expansionLimit = expansionLimit
    }

    /// A container under construction.
    enum Frame {
        case sequence(items: [YAMLNode], size: Int, anchor: String?, at: SourceLocation)
        case mapping(pairs: [(YAMLNode, YAMLNode)], pendingKey: YAMLNode?, size: Int, anchor: String?, at: SourceLocation)
    }

    func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    mutating func read(_ text: String) throws(DiagnosticList) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw DiagnosticList([Diagnostic(at: nil, file: file, "cannot start the YAML parser (out of memory)")])
        }
        defer { yaml_parser_delete(&parser) }

        var bytes = Array(text.utf8)
        let count = bytes.count
        var stack: [Frame] = []
        var root: Sized?
        var documents = 0

        try bytes.withUnsafeMutableBufferPointer { (buffer) throws(DiagnosticList) in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, count)
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    throw DiagnosticList(diagnostics + [syntaxError(parser)])
                }
                defer { yaml_event_delete(&event) }
                let start = location(event.start_mark)
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    if !diagnostics.isEmpty { throw DiagnosticList(diagnostics) }
                    return
                case YAML_DOCUMENT_START_EVENT:
                    documents += 1
                    if documents == 2 {
                        diagnostics.append(.error("a manifest is one YAML document; remove the second '---'", at: start))
                        throw DiagnosticList(diagnostics)
                    }
                case YAML_SCALAR_EVENT:
                    let s = event.data.scalar
                    let value = String(decoding: UnsafeBufferPointer(start: s.value, count: s.length), as: UTF8.self)
                    let style: YAMLNode.ScalarStyle
                    switch s.style {
                    case YAML_SINGLE_QUOTED_SCALAR_STYLE: style = .singleQuoted
                    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: style = .doubleQuoted
                    case YAML_LITERAL_SCALAR_STYLE: style = .literal
                    case YAML_FOLDED_SCALAR_STYLE: style = .folded
                    default: style = .plain
                    }
                    let node = Sized(node: YAMLNode(.scalar(value, style: style), at: start), size: 1)
                    try add(node, anchor: string(s.anchor), to: &stack, root: &root)
                case YAML_ALIAS_EVENT:
                    let name = string(event.data.alias.anchor) ?? ""
                    guard let target = anchors[name] else {
                        diagnostics.append(.error("unknown anchor '\(name)'", at: start))
                        throw DiagnosticList(diagnostics)
                    }
                    expanded += target.size
                    if expanded > expansionLimit {
                        diagnostics.append(.error(
                            "aliases expand to more than \(expansionLimit) nodes; refusing to expand '*\(name)' (is this a \"billion laughs\" file?)",
                            at: start))
                        throw DiagnosticList(diagnostics)
                    }
                    try add(target, anchor: nil, to: &stack, root: &root)
                case YAML_SEQUENCE_START_EVENT:
                    stack.append(.sequence(items: [], size: 1, anchor: string(event.data.sequence_start.anchor), at: start))
                case YAML_SEQUENCE_END_EVENT:
                    guard case .sequence(let items, let size, let anchor, let at) = stack.removeLast() else { break }
                    try add(Sized(node: YAMLNode(.sequence(items), at: at), size: size), anchor: anchor, to: &stack, root: &root)
                case YAML_MAPPING_START_EVENT:
                    stack.append(.mapping(pairs: [], pendingKey: nil, size: 1, anchor: string(event.data.mapping_start.anchor), at: start))
                case YAML_MAPPING_END_EVENT:
                    guard case .mapping(let pairs, _, let size, let anchor, let at) = stack.removeLast() else { break }
                    let entries = mappingEntries(pairs)
                    try add(Sized(node: YAMLNode(.mapping(entries), at: at), size: size), anchor: anchor, to: &stack, root: &root)
                default:
                    break  // stream and document markers carry nothing we keep
                }
            }
        }
        return root?.node
    }

    func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    /// Attaches a finished node to the container being built, or makes it the document's root.
    mutating func add(_ item: Sized, anchor: String?, to stack: inout [Frame], root: inout Sized?) throws(DiagnosticList) {
        if let anchor { anchors[anchor] = item }
        guard let top = stack.popLast() else {
            root = item
            return
        }
        switch top {
        case .sequence(var items, let size, let a, let at):
            items.append(item.node)
            stack.append(.sequence(items: items, size: size + item.size, anchor: a, at: at))
        case .mapping(var pairs, let pendingKey, let size, let a, let at):
            if let key = pendingKey {
                pairs.append((key, item.node))
                stack.append(.mapping(pairs: pairs, pendingKey: nil, size: size + item.size, anchor: a, at: at))
            } else {
                stack.append(.mapping(pairs: pairs, pendingKey: item.node, size: size + item.size, anchor: a, at: at))
            }
        }
    }

    /// Turns raw pairs into entries: string keys only, no duplicates, `<<` merges applied.
    mutating func mappingEntries(_ pairs: [(YAMLNode, YAMLNode)]) -> [YAMLMappingEntry] {
        var entries: [YAMLMappingEntry] = []
        var seen: [String: SourceLocation] = [:]
        var merged: [YAMLMappingEntry] = []
        for (key, value) in pairs {
            guard case .scalar(let name, let style) = key.content else {
                diagnostics.append(.error("a mapping key must be a plain string, not \(key.kindDescription)", at: key.location))
                continue
            }
            if name == "<<" && style == .plain {
                merged += mergeSources(value)
                continue
            }
            if let first = seen[name] {
                diagnostics.append(.error("duplicate key '\(name)' (first written at line \(first.line), column \(first.column))", at: key.location))
                continue
            }
            seen[name] = key.location
            entries.append(YAMLMappingEntry(key: name, keyLocation: key.location, value: value))
        }
        // Merged keys fill in what the mapping does not say itself; the first merged mapping wins.
        for entry in merged where seen[entry.key] == nil {
            seen[entry.key] = entry.keyLocation
            entries.append(entry)
        }
        return entries
    }

    /// The entries a `<<` value brings: a mapping's, or those of each mapping in a list, in order.
    mutating func mergeSources(_ value: YAMLNode) -> [YAMLMappingEntry] {
        switch value.content {
        case .mapping(let entries):
            return entries
        case .sequence(let items):
            var all: [YAMLMappingEntry] = []
            for item in items {
                if case .mapping(let entries) = item.content {
                    all += entries
                } else {
                    diagnostics.append(.error("'<<' merges mappings only, but this is \(item.kindDescription)", at: item.location))
                }
            }
            return all
        case .scalar:
            diagnostics.append(.error("'<<' merges a mapping or a list of mappings, but this is \(value.kindDescription)", at: value.location))
            return []
        }
    }

    func syntaxError(_ parser: yaml_parser_t) -> Diagnostic {
        var problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        if let context = parser.context.map({ String(cString: $0) }) {
            let c = location(parser.context_mark)
            problem += " (\(context) at line \(c.line), column \(c.column))"
        }
        return .error("YAML syntax error: \(problem)", at: location(parser.problem_mark))
    }
}
