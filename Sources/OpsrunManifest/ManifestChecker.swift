import OpsrunCore
/// Collects the diagnostics of one manifest and reads values of the shapes keys allow.
///
/// Each reader reports a value of the wrong shape at the value's node and returns `nil` (or what
/// could be read), so checking goes on and one mistake yields one message.
struct ManifestChecker {
    var diagnostics: [Diagnostic] = []
    /// Suggestions among the task names, made at the first unknown reference.
    private var taskNameSuggestions: NameSuggestions?
    /// The manifest's source, to place an error inside a value (`ExpansionPlace`).
    var text: String?
    /// Whether a name was left for `IncludeLoader` to check (`:codegen`, `web:build`).
    var sawOutsideReference = false

    init(text: String? = nil) { self.text = text }

    /// `; did you mean 'x'?` for an unknown task `name`, among `taskNames` (the same list at every
    /// call), or the empty string.
    /// `; did you mean 'env'?` for an unknown key: one of `keys` it is a misspelling of, or what
    /// `borrowed` says a key of another tool (`environment`) is here, or a misspelling of one
    /// (`enviroment`); the empty string when nothing is near.
    static func keySuggestion(for key: String, keys: [String], borrowed: [String: String]) -> String {
        if let known = borrowed[key] { return "; did you mean '\(known)'?" }
        if let near = Suggestion.nearest(to: key, in: keys) { return "; did you mean '\(near)'?" }
        if let near = Suggestion.nearest(to: key, in: borrowed.keys.sorted()), let known = borrowed[near] {
            return "; did you mean '\(known)'?"
        }
        return ""
    }

    mutating func taskSuggestion(for name: String, among taskNames: [String]) -> String {
        if taskNameSuggestions == nil { taskNameSuggestions = NameSuggestions(taskNames) }
        return taskNameSuggestions!.phrase(for: name)
    }

    mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(.error(message, at: location))
    }

    /// A scalar's text; otherwise reports "`what` must be `expected`, not a list".
    /// (`what` is an autoclosure: the wording costs nothing unless there is something to report.)
    mutating func scalar(_ node: YAMLNode, _ what: @autoclosure () -> String, must expected: String) -> String? {
        if let text = node.scalar { return text }
        error("\(what()) must be \(expected), not \(node.kindDescription)", at: node.location)
        return nil
    }

    /// How `strings` names what it reads, for its messages.
    struct ListWording {
        /// The whole value: "'deps' of task 'build'".
        var whole: String
        /// What the value may be: "a task name or a list of task names".
        var expected: String
        /// An entry of the wrong kind: given "a mapping", the whole sentence.
        var wrongEntry: (String) -> String
        /// An empty entry, the whole sentence.
        var emptyEntry: String
    }

    /// A string or a list of strings, none empty; `nil` when the value has the wrong shape.
    ///
    /// Bad entries are reported and left out; the rest are returned.
    /// (`wording` is an autoclosure: it is built only when there is something to report.)
    mutating func strings(_ node: YAMLNode, _ wording: @autoclosure () -> ListWording) -> [Located<String>]? {
        switch node.content {
        case .scalar(let text, _):
            // The common case, one string: no list to build.
            if node.isNull || Self.isBlank(text) {
                error(wording().emptyEntry, at: node.location)
                return []
            }
            return [Located(text, at: node.location)]
        case .sequence(let entries):
            var result: [Located<String>] = []
            result.reserveCapacity(entries.count)
            for entry in entries {
                guard let text = entry.scalar else {
                    error(wording().wrongEntry(entry.kindDescription), at: entry.location)
                    continue
                }
                if entry.isNull || Self.isBlank(text) {
                    error(wording().emptyEntry, at: entry.location)
                    continue
                }
                result.append(Located(text, at: entry.location))
            }
            return result
        case .mapping:
            let wording = wording()
            error("\(wording.whole) must be \(wording.expected), not \(node.kindDescription)", at: node.location)
            return nil
        }
    }

    /// Empty or only whitespace; decided by the first byte when it is visible ASCII.
    static func isBlank(_ text: String) -> Bool {
        if let first = text.utf8.first, first > 0x20 && first < 0x7F { return false }
        return text.allSatisfy { $0.isWhitespace }
    }

    /// Standard wording for a list of names or paths under `whole`, e.g. "'sources' of task 'build'".
    static func listWording(_ whole: String, of item: String, plural: String) -> ListWording {
        ListWording(
            whole: whole, expected: "\(item) or a list of \(plural)",
            wrongEntry: { "each entry in \(whole) must be \(item), not \($0)" },
            emptyEntry: "an entry in \(whole) is empty")
    }

    /// An `env:` mapping: valid variable names to scalars, in order.
    mutating func environment(_ node: YAMLNode, _ whole: @autoclosure () -> String) -> [EnvironmentEntry] {
        guard case .mapping(let entries) = node.content else {
            error("\(whole()) must be a mapping of variable names to values, not \(node.kindDescription)", at: node.location)
            return []
        }
        var result: [EnvironmentEntry] = []
        for entry in entries {
            if !ManifestNames.isEnvironmentName(entry.key) {
                error(
                    "invalid variable name '\(entry.key)' in \(whole()); use letters, digits and '_', not starting with a digit",
                    at: entry.keyLocation)
            }
            guard let text = scalar(entry.value, "the value of '\(entry.key)' in \(whole())", must: "a string") else { continue }
            checkExpansions(text, at: entry.value.location, in: "the value of '\(entry.key)' in \(whole())")
            // `NAME:` alone (or `~`) sets the variable to the empty string.
            result.append(EnvironmentEntry(name: entry.key, value: entry.value.isNull ? "" : text, location: entry.keyLocation))
        }
        return result
    }

    /// Reports a `${...}` in `template` that is not one of the forms `Interpolation` expands, at
    /// its `${`. `location`: where the value (or its `env` key) is written; `what` names it, as
    /// "'dir' of task 'build'". For every value the manifest expands: `env` values, `dir`,
    /// `sources`, `outputs` (and `depfile`, `each`).
    mutating func checkExpansions(_ template: String, at location: SourceLocation, in what: @autoclosure () -> String) {
        guard let problem = Interpolation.problem(in: template) else { return }
        error(problem.message(in: what()), at: ExpansionPlace.locate(problem, in: template, at: location, text: text))
    }

    /// As `checkExpansions`, for a path (`dir`, `sources`, `outputs`, `depfile`), where a `$NAME`
    /// without braces is a mistake too: it would be taken as written, a file named `$SRC` (which
    /// then looked like a misspelling of `src`). The shell's form is not expanded here
    /// (docs/manual/variables.md); `${SRC}` is, and `$$` is a literal `$`.
    mutating func checkPathExpansions(_ template: String, at location: SourceLocation, in what: @autoclosure () -> String) {
        checkExpansions(template, at: location, in: what())
        guard UTF8Text.contains(UInt8(ascii: "$"), in: template), let name = Self.bareReference(in: template) else { return }
        error(
            "'$\(name)' in \(what()) is not expanded: write '${\(name)}' (or '$$' for a literal '$')",
            at: ExpansionPlace.locate("$" + name, at: location, text: text))
    }

    /// The name of the first `$NAME` without braces in `template` (`$$` and `${...}` skipped).
    static func bareReference(in template: String) -> String? {
        let bytes = Array(template.utf8)
        func isNameStart(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_")
        }
        func isNameByte(_ byte: UInt8) -> Bool { isNameStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == UInt8(ascii: "$") else {
                index += 1
                continue
            }
            let next = bytes[index + 1]
            if next == UInt8(ascii: "$") {
                index += 2
            } else if next == UInt8(ascii: "{") {
                // Past the reference's closing brace (a word inside may hold `${...}` too).
                var depth = 0
                index += 1
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "{") { depth += 1 }
                    if bytes[index] == UInt8(ascii: "}") {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    index += 1
                }
                index += 1
            } else if isNameStart(next) {
                var end = index + 1
                while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
                return String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            } else {
                index += 1
            }
        }
        return nil
    }

    /// A whole number written in digits only, within `range`; `nil` when it is not one.
    static func integer(_ text: String, in range: ClosedRange<Int>) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let value = Int(text), range.contains(value)
        else { return nil }
        return value
    }

    /// Sorted by place: file-wide problems first, then by line and column, keeping file order on ties.
    var sortedDiagnostics: [Diagnostic] {
        diagnostics.enumerated().sorted { a, b in
            switch (a.element.location, b.element.location) {
            case (nil, nil): return a.offset < b.offset
            case (nil, _): return true
            case (_, nil): return false
            case (let x?, let y?): return x == y ? a.offset < b.offset : x < y
            }
        }.map { $0.element }
    }
}
