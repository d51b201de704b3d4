import CLoader
import CYAML
import OpsrunCore

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
    /// The deepest nesting of lists and mappings accepted.
    public static let maximumDepth = 128

    /// Parses `text`; `file` names the source in every location. Throws `DiagnosticList`.
    public static func parse(
        _ text: String, file: String, expansionLimit: Int = defaultExpansionLimit
    ) throws(DiagnosticList) -> YAMLNode? {
        var reader = Reader(file: file, expansionLimit: expansionLimit)
        return try reader.read(text)
    }

    /// The version of the libyaml this process runs on (`0.2.5`), as the loaded library says.
    public static var libraryVersion: String { String(cString: yaml_get_version_string()) }

    /// The file libyaml was loaded from: the shared library, or the executable when it is linked
    /// in. Parsing depends on it: the manifest cache keys on it. Asked of the dynamic loader
    /// (`dladdr` on one of libyaml's functions), which names a shared library by an absolute path;
    /// reading /proc/self/maps instead took 5 % of a one-task run.
    public static var libraryFile: String {
        let function: @convention(c) (UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> Void = yaml_get_version
        return cloader_file_of(unsafeBitCast(function, to: UnsafeRawPointer.self)).map { String(cString: $0) } ?? "/proc/self/exe"
    }
}

/// A node being built, with its expanded size for the alias bound.
private struct Sized {
    var node: YAMLNode
    var size: Int
}

/// A container under construction. A struct mutated in place on the stack: popping an enum frame
/// and appending to a copy of its array would copy the array once per item (quadratic in length).
private struct Frame {
    var isMapping: Bool
    var items: [YAMLNode] = []
    /// A mapping's entries while every key is a string other than a plain `<<`, and (up to
    /// `MappingBuilder.scanLimit` entries) none is repeated: nearly every mapping, built without
    /// a second array of raw pairs.
    var entries: [YAMLMappingEntry] = []
    /// Every raw pair, once a key needs the general path of `mappingEntries`; `nil` until then.
    var pairs: [(YAMLNode, YAMLNode)]?
    var pendingKey: YAMLNode?
    var size = 1
    var anchor: String?
    var at: SourceLocation
}

extension Frame {
    /// Up to this many entries a repeated key is found by scanning the earlier ones.
    static let scanLimit = 8

    /// Adds one `key: value` pair of a mapping.
    mutating func add(key: consuming YAMLNode, value: consuming YAMLNode) {
        if pairs == nil {
            if case .scalar(let name, let style) = key.content, !(name == "<<" && style == .plain),
                entries.count >= Self.scanLimit || !entries.contains(where: { $0.key == name })
            {
                // A task's mapping has a few keys: one allocation instead of growing 1, 2, 4.
                if entries.capacity == 0 { entries.reserveCapacity(4) }
                entries.append(YAMLMappingEntry(key: name, keyLocation: key.location, value: value))
                return
            }
            // This key needs the general path (a merge, a key that is no string, a repeat).
            pairs = Self.rawPairs(entries)
            entries = []
        }
        pairs!.append((key, value))
    }

    /// Entries back as raw pairs. Only a key's text, place and whether it is a plain `<<` matter
    /// to the general path, and an entry's key is never a plain `<<`; so a `<<` here was quoted.
    static func rawPairs(_ entries: [YAMLMappingEntry]) -> [(YAMLNode, YAMLNode)] {
        entries.map { entry in
            let style: YAMLNode.ScalarStyle = entry.key == "<<" ? .doubleQuoted : .plain
            return (YAMLNode(.scalar(entry.key, style: style), at: entry.keyLocation), entry.value)
        }
    }
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
        // A byte order mark is no content; libyaml, told the encoding, would take it for one.
        if UTF8Text.startsWithByteOrderMark(bytes) { bytes.removeFirst(3) }
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
                    throw DiagnosticList(diagnostics + [syntaxError(parser, in: UnsafeBufferPointer(buffer))])
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
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    let isMapping = event.type == YAML_MAPPING_START_EVENT
                    // Nothing in a manifest nests deeply; a bound keeps a hostile file from building
                    // a tree whose (recursive) destruction would overflow the stack.
                    if stack.count >= YAMLDocument.maximumDepth {
                        diagnostics.append(.error("YAML nested more than \(YAMLDocument.maximumDepth) levels deep", at: start))
                        throw DiagnosticList(diagnostics)
                    }
                    let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
                    stack.append(Frame(isMapping: isMapping, anchor: string(anchor), at: start))
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    guard let frame = stack.popLast() else { break }
                    let content: YAMLNode.Content =
                        frame.isMapping ? .mapping(finishedEntries(frame)) : .sequence(frame.items)
                    try add(Sized(node: YAMLNode(content, at: frame.at), size: frame.size), anchor: frame.anchor, to: &stack, root: &root)
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
    mutating func add(
        _ item: consuming Sized, anchor: String?, to stack: inout [Frame], root: inout Sized?
    ) throws(DiagnosticList) {
        if let anchor { anchors[anchor] = item }
        guard !stack.isEmpty else {
            root = item
            return
        }
        let top = stack.count - 1
        stack[top].size += item.size
        if !stack[top].isMapping {
            // Lists in a manifest are short: one allocation instead of growing 1, 2, 4.
            if stack[top].items.capacity == 0 { stack[top].items.reserveCapacity(4) }
            stack[top].items.append(item.node)
        } else if let key = stack[top].pendingKey.take() {
            stack[top].add(key: key, value: item.node)
        } else {
            stack[top].pendingKey = item.node
        }
    }

    /// A finished mapping's entries: those built as it was read when no key needs more, otherwise
    /// the general path's.
    mutating func finishedEntries(_ frame: Frame) -> [YAMLMappingEntry] {
        if let pairs = frame.pairs { return mappingEntries(pairs) }
        // Short mappings were checked for repeats entry by entry; a long one (`tasks:`) is checked
        // here with a set, and on a repeat the general path finds and reports it.
        if frame.entries.count > Frame.scanLimit {
            var keys = Set<String>(minimumCapacity: frame.entries.count)
            for entry in frame.entries where !keys.insert(entry.key).inserted {
                return mappingEntries(Frame.rawPairs(frame.entries))
            }
        }
        return frame.entries
    }

    /// Turns raw pairs into entries: string keys only, no duplicates, `<<` merges applied.
    ///
    /// Keys written in the mapping itself win over merged ones, and an earlier merged mapping over a
    /// later one; merged entries take the place of their `<<` so the written order is kept.
    mutating func mappingEntries(_ pairs: [(YAMLNode, YAMLNode)]) -> [YAMLMappingEntry] {
        var written: [String: SourceLocation] = [:]
        var isWritten: [Bool] = []  // per pair: a key of its own that is kept
        for (key, _) in pairs {
            guard case .scalar(let name, let style) = key.content else {
                diagnostics.append(.error("a mapping key must be a plain string, not \(key.kindDescription)", at: key.location))
                isWritten.append(false)
                continue
            }
            if name == "<<" && style == .plain {
                isWritten.append(false)
                continue
            }
            if let first = written[name] {
                diagnostics.append(.error("duplicate key '\(name)' (first written at line \(first.line), column \(first.column))", at: key.location))
                isWritten.append(false)
                continue
            }
            written[name] = key.location
            isWritten.append(true)
        }
        var entries: [YAMLMappingEntry] = []
        entries.reserveCapacity(written.count)
        let merges = pairs.contains { key, _ in
            if case .scalar("<<", .plain) = key.content { return true }
            return false
        }
        if !merges {
            // Without `<<` (a big `tasks:` mapping, say) the kept keys are all there is.
            for (index, (key, value)) in pairs.enumerated() where isWritten[index] {
                guard case .scalar(let name, _) = key.content else { continue }
                entries.append(YAMLMappingEntry(key: name, keyLocation: key.location, value: value))
            }
            return entries
        }
        var seen = Set<String>()
        for (index, (key, value)) in pairs.enumerated() {
            guard case .scalar(let name, let style) = key.content else { continue }
            if isWritten[index] {
                seen.insert(name)
                entries.append(YAMLMappingEntry(key: name, keyLocation: key.location, value: value))
            } else if name == "<<" && style == .plain {
                for entry in mergeSources(value) where written[entry.key] == nil && !seen.contains(entry.key) {
                    seen.insert(entry.key)
                    entries.append(entry)
                }
            }
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

    func syntaxError(_ parser: yaml_parser_t, in bytes: UnsafeBufferPointer<UInt8>) -> Diagnostic {
        let libyamlProblem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        var problem = libyamlProblem
        let context = parser.context.map { String(cString: $0) }
        if let context {
            let c = location(parser.context_mark)
            problem += " (\(context) at line \(c.line), column \(c.column))"
        }
        let hint = Self.hint(problem: libyamlProblem, context: context, at: Int(parser.problem_mark.index), in: bytes)
        return .error("YAML syntax error: \(problem)\(hint)", at: location(parser.problem_mark))
    }

    /// What the usual mistakes behind libyaml's words are, for someone who writes YAML rarely:
    /// a tab, a glob starting with `*`, `${...}` in a `[...]` list, `: ` inside a command.
    static func hint(problem: String, context: String?, at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        let lineStart = bytes[..<min(index, bytes.count)].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let lineEnd = bytes[min(index, bytes.count)...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        let line = bytes[lineStart..<lineEnd]
        func lineContains(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            return line.indices.contains { bytes[$0...].starts(with: needle) && $0 + needle.count <= lineEnd }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\t") {
            return "; this is a tab: YAML indents with spaces only"
        }
        if context == "while scanning an alias" {
            return "; a value starting with '*' is a YAML alias: quote a glob (\"*.c\")"
        }
        if problem.hasPrefix("did not find expected ',' or"), lineContains("${") {
            return "; inside [...] or {...}, quote a value with '{' or '}' in it ([\"build/${SRC%.c}.o\"])"
        }
        if problem == "mapping values are not allowed in this context" {
            return "; a value with ': ' in it must be quoted ('echo a: b'), and a mapping starts on a line of its own"
        }
        return ""
    }
}
