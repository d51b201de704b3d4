import OpsrunCore

/// `${...}` in `env` values, `dir`, `sources` and `outputs` (docs/manual/variables.md), and in any other value
/// the manifest expands the same way (`depfile`, `each` lists): one parser, one meaning.
///
/// The forms, with the shell's meaning (`word` is itself expanded, only when it is used):
///
///     ${NAME}            the value; empty when unset
///     ${NAME:-word}      word when NAME is unset or empty      ${NAME-word}  only when unset
///     ${NAME:+word}      word when NAME is set and not empty   ${NAME+word}  when set
///     ${NAME#pattern}    without the shortest prefix matching  ${NAME##pattern}  the longest
///     ${NAME%pattern}    without the shortest suffix matching  ${NAME%%pattern}  the longest
///     ${NAME:?message}   the value; an error (`Problem.unset`) when unset or empty
///
/// `$$` is a literal `$`; a `$` not followed by `{` or `$` stays as written. Anything else after
/// `${` (`${X/a/b}`, `${X:0:2}`, `${!X}`, `${#X}`, `${}`, a `${` with no `}`) is a `Problem`, never
/// text passed through. Unlike a shell, quotes mean nothing here (the value is not a shell word:
/// `${X:-"a b"}` gives `"a b"` with its quotes), and values are never expanded again.
public enum Interpolation {
    /// Why a template cannot be expanded, and where in it.
    public struct Problem: Error, Hashable, Sendable {
        public enum Kind: Hashable, Sendable {
            /// Not one of the forms: says what it is (`pattern substitution is not supported`).
            case unsupported(String)
            /// A `${` that no `}` closes.
            case unclosed
            /// `${NAME:?message}` while NAME is unset or empty; `message` is expanded (maybe empty).
            case unset(name: String, message: String)
        }

        public var kind: Kind
        /// Byte (UTF-8) offset of the reference's `${` in the template.
        public var offset: Int
        /// The reference as written, from its `${` to its `}` (to the end when unclosed), shortened
        /// when long.
        public var reference: String

        /// The error in words, saying where: `what` names the value, e.g. "'dir' of task 'build'".
        public func message(in what: String) -> String {
            switch kind {
            case .unsupported(let why):
                return "unsupported expansion '\(reference)' in \(what): \(why); \(Interpolation.forms)"
            case .unclosed:
                return "unclosed '${' in \(what): '\(reference)' has no '}'; write $$ for a literal $"
            case .unset(let name, let message):
                let why = message.isEmpty ? "" : ": \(message)"
                return "\(what) needs \(name), which is not set or is empty\(why)"
            }
        }
    }

    /// What the messages list as the forms there are.
    static let forms =
        "opsrun expands ${NAME}, ${NAME:-word}, ${NAME-word}, ${NAME:+word}, ${NAME+word}, ${NAME#pattern}, "
        + "${NAME##pattern}, ${NAME%pattern}, ${NAME%%pattern} and ${NAME:?message}; $$ is a literal $"

    /// `template` with its references replaced, `lookup` giving each variable's value (nil: unset).
    /// Throws for a reference that is not one of the forms, or for `${NAME:?message}` with NAME
    /// unset or empty.
    public static func expand(_ template: String, lookup: (String) -> String?) throws(Problem) -> String {
        guard UTF8Text.contains(UInt8(ascii: "$"), in: template) else { return template }
        return try Template(template).expand(lookup: lookup)
    }

    /// A template parsed once, to be expanded many times: the `sources` and `outputs` of every
    /// instance of an `each` task are the same few templates. Parsing (and a `#`/`%` pattern's
    /// own parsing) took two thirds of expanding `build/${SRC%.c}.o`, and expanding was 15 % of
    /// a 300-instance no-op's instructions (callgrind), before the templates were kept.
    public struct Template: Sendable {
        private let bytes: [UInt8]
        private let pieces: [Piece]

        public init(_ template: String) throws(Problem) {
            var parser = Parser(bytes: Array(template.utf8))
            pieces = try parser.pieces(inWord: false)
            bytes = parser.bytes
        }

        /// The template with its references replaced, `lookup` giving each variable's value.
        public func expand(lookup: (String) -> String?) throws(Problem) -> String {
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            try Interpolation.evaluate(pieces, lookup, template: bytes, into: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// `expand` for a template already checked (the loader reports what does not parse, and a run
    /// checks `${NAME:?}` before anything starts): a problem gives the template as written.
    public static func expandChecked(_ template: String, lookup: (String) -> String?) -> String {
        (try? expand(template, lookup: lookup)) ?? template
    }

    /// The first reference in `template` that is not one of the forms: what the loader reports.
    public static func problem(in template: String) -> Problem? {
        guard UTF8Text.contains(UInt8(ascii: "$"), in: template) else { return nil }
        do {
            _ = try parse(template)
            return nil
        } catch {
            return error
        }
    }

    /// Whether expanding `template` can fail however well formed it is: it has a `${NAME:?}`.
    /// Cheap and conservative (any `:?` after a `${` counts).
    /// Asked of every selected task's values before each run: on the bytes in place (a short
    /// value is a small string, slow to walk through its `utf8` view one byte at a time).
    public static func mayRequire(_ template: String) -> Bool {
        var template = template
        return template.withUTF8 { bytes in
            var sawReference = false
            var previous: UInt8 = 0
            for byte in bytes {
                if previous == UInt8(ascii: "$") && byte == UInt8(ascii: "{") { sawReference = true }
                if sawReference && previous == UInt8(ascii: ":") && byte == UInt8(ascii: "?") { return true }
                previous = byte
            }
            return false
        }
    }

    /// The names `template` refers to (words' references included), in order of first appearance;
    /// none for a template that does not parse.
    public static func references(in template: String) -> [String] {
        guard let pieces = try? parse(template) else { return [] }
        var names: [String] = []
        func visit(_ pieces: [Piece]) {
            for case .reference(let reference) in pieces {
                if !names.contains(reference.name) { names.append(reference.name) }
                visit(reference.word)
            }
        }
        visit(pieces)
        return names
    }

    /// The names `template` uses as they are, with no word for when they are unset: `${NAME}`,
    /// `${NAME%pat}`, `${NAME#pat}` (not inside another reference's word); none for a template
    /// that does not parse. An unset one expands to nothing, as in the shell.
    public static func unguardedReferences(in template: String) -> [String] {
        guard UTF8Text.contains(UInt8(ascii: "$"), in: template), let pieces = try? parse(template) else { return [] }
        var names: [String] = []
        for case .reference(let reference) in pieces where !names.contains(reference.name) {
            switch reference.operation {
            case .value, .removePrefix, .removeSuffix: names.append(reference.name)
            case .useDefault, .useAlternative, .require: break
            }
        }
        return names
    }

    // MARK: - Parsing

    enum Piece: Sendable {
        case text([UInt8])
        case reference(Reference)
    }

    struct Reference: Sendable {
        enum Operation {
            case value
            /// `:-` (`colon`) and `-`.
            case useDefault(colon: Bool)
            /// `:+` and `+`.
            case useAlternative(colon: Bool)
            /// `#` and `##`.
            case removePrefix(longest: Bool)
            /// `%` and `%%`.
            case removeSuffix(longest: Bool)
            /// `:?`.
            case require
        }

        var name: String
        var operation: Operation
        var word: [Piece]
        /// For `#` and `%` with a word of plain text (`${SRC%.c}`): its pattern, made once.
        var pattern: ShellPattern?
        /// Byte range of the reference, `${` to `}` inclusive.
        var start: Int
        var end: Int
    }

    static func parse(_ template: String) throws(Problem) -> [Piece] {
        var parser = Parser(bytes: Array(template.utf8))
        return try parser.pieces(inWord: false)
    }

    struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// Text and references up to the end, or (in a word) up to the first `}` that closes no
        /// reference of its own, which is left for the caller. A `{` opens nothing, as in a shell:
        /// `${X:-{a}}` is `{a` then a literal `}` when X is unset.
        mutating func pieces(inWord: Bool) throws(Problem) -> [Piece] {
            var pieces: [Piece] = []
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                if inWord && byte == UInt8(ascii: "}") { break }
                if byte == UInt8(ascii: "$"), index + 1 < bytes.count {
                    let next = bytes[index + 1]
                    if next == UInt8(ascii: "$") {
                        text.append(byte)
                        index += 2
                        continue
                    }
                    if next == UInt8(ascii: "{") {
                        if !text.isEmpty {
                            pieces.append(.text(text))
                            text = []
                        }
                        pieces.append(.reference(try reference()))
                        continue
                    }
                }
                text.append(byte)
                index += 1
            }
            if !text.isEmpty { pieces.append(.text(text)) }
            return pieces
        }

        /// The reference whose `${` is at `index`.
        mutating func reference() throws(Problem) -> Reference {
            let start = index
            index += 2
            let nameStart = index
            while index < bytes.count, Interpolation.isNameByte(bytes[index], first: index == nameStart) { index += 1 }
            if index == nameStart { throw index == bytes.count ? unclosed(start) : problem(at: start, noName()) }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            guard index < bytes.count else { throw unclosed(start) }
            let operation: Reference.Operation
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : nil
            switch byte {
            case UInt8(ascii: "}"):
                index += 1
                return Reference(name: name, operation: .value, word: [], pattern: nil, start: start, end: index)
            case UInt8(ascii: ":"):
                switch next {
                case UInt8(ascii: "-"): operation = .useDefault(colon: true)
                case UInt8(ascii: "+"): operation = .useAlternative(colon: true)
                case UInt8(ascii: "?"): operation = .require
                case UInt8(ascii: "="):
                    throw problem(at: start, "assigning a default is not supported (use ${\(name):-default})")
                case nil: throw unclosed(start)
                default: throw problem(at: start, "substrings (${NAME:offset:length}) are not supported")
                }
                index += 2
            case UInt8(ascii: "-"):
                operation = .useDefault(colon: false)
                index += 1
            case UInt8(ascii: "+"):
                operation = .useAlternative(colon: false)
                index += 1
            case UInt8(ascii: "#"), UInt8(ascii: "%"):
                let longest = next == byte
                operation = byte == UInt8(ascii: "#") ? .removePrefix(longest: longest) : .removeSuffix(longest: longest)
                index += longest ? 2 : 1
            case UInt8(ascii: "="):
                throw problem(at: start, "assigning a default is not supported (use ${\(name)-default})")
            case UInt8(ascii: "?"):
                throw problem(at: start, "only the ':?' form is supported (${\(name):?message})")
            case UInt8(ascii: "/"):
                throw problem(at: start, "pattern substitution (${NAME/pattern/string}) is not supported")
            case UInt8(ascii: "^"), UInt8(ascii: ","):
                throw problem(at: start, "case conversion is not supported")
            case UInt8(ascii: "@"):
                throw problem(at: start, "transformations (${NAME@...}) are not supported")
            case UInt8(ascii: "["):
                throw problem(at: start, "arrays are not supported")
            default:
                throw problem(at: start, "'\(Self.shown(at: index, in: bytes))' cannot follow a variable name there")
            }
            let word = try pieces(inWord: true)
            guard index < bytes.count else { throw unclosed(start) }
            index += 1  // the `}`
            var pattern: ShellPattern?
            switch operation {
            case .removePrefix, .removeSuffix:
                if word.isEmpty {
                    pattern = ShellPattern("")
                } else if word.count == 1, case .text(let text) = word[0] {
                    pattern = ShellPattern(String(decoding: text, as: UTF8.self))
                }
            default: break
            }
            return Reference(name: name, operation: operation, word: word, pattern: pattern, start: start, end: index)
        }

        /// Why nothing after `${` (at `index`) is a name.
        private func noName() -> String {
            switch bytes[index] {
            case UInt8(ascii: "}"): return "it names no variable"
            case UInt8(ascii: "!"): return "indirect expansion (${!NAME}) is not supported"
            case UInt8(ascii: "#"): return "the length of a value (${#NAME}) is not supported"
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "@"), UInt8(ascii: "*"):
                return "positional parameters are not expanded here (the shell expands them in 'run')"
            case UInt8(ascii: "$"), UInt8(ascii: "?"), UInt8(ascii: "-"):
                return "special parameters are not expanded here (the shell expands them in 'run')"
            default:
                return "a variable name is letters, digits and '_', not starting with a digit"
            }
        }

        private func problem(at start: Int, _ why: String) -> Problem {
            // The reference as far as its first `}`, for the message.
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "}") { end += 1 }
            if end < bytes.count { end += 1 }
            return Problem(kind: .unsupported(why), offset: start, reference: Self.shortened(bytes[start..<end]))
        }

        private func unclosed(_ start: Int) -> Problem {
            Problem(kind: .unclosed, offset: start, reference: Self.shortened(bytes[start...]))
        }

        static func shortened(_ bytes: ArraySlice<UInt8>) -> String {
            let text = String(decoding: bytes, as: UTF8.self)
            return text.count <= 40 ? text : String(text.prefix(37)) + "..."
        }

        /// The character at `index`, whole (not one byte of it).
        static func shown(at index: Int, in bytes: [UInt8]) -> String {
            String(String(decoding: bytes[index...], as: UTF8.self).prefix(1))
        }

    }

    /// A byte of a variable name as the shell reads one: letters, digits and `_`, not a digit first.
    package static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"): true
        case UInt8(ascii: "0")...UInt8(ascii: "9"): !first
        default: false
        }
    }

    // MARK: - Evaluation

    fileprivate static func evaluate(
        _ pieces: [Piece], _ lookup: (String) -> String?, template: [UInt8], into out: inout [UInt8]
    ) throws(Problem) {
        for piece in pieces {
            switch piece {
            case .text(let bytes):
                out += bytes
            case .reference(let reference):
                let value = lookup(reference.name)
                let isEmpty = value?.isEmpty ?? true
                switch reference.operation {
                case .value:
                    if let value { out += value.utf8 }
                case .useDefault(let colon):
                    if value == nil || (colon && isEmpty) {
                        try evaluate(reference.word, lookup, template: template, into: &out)
                    } else if let value {
                        out += value.utf8
                    }
                case .useAlternative(let colon):
                    if value != nil && !(colon && isEmpty) {
                        try evaluate(reference.word, lookup, template: template, into: &out)
                    }
                case .require:
                    guard let value, !value.isEmpty else {
                        var message: [UInt8] = []
                        try evaluate(reference.word, lookup, template: template, into: &message)
                        throw Problem(
                            kind: .unset(name: reference.name, message: String(decoding: message, as: UTF8.self)),
                            offset: reference.start,
                            reference: Parser.shortened(template[reference.start..<reference.end]))
                    }
                    out += value.utf8
                case .removePrefix(let longest), .removeSuffix(let longest):
                    guard let value, !value.isEmpty else { continue }
                    let matcher: ShellPattern
                    if let pattern = reference.pattern {
                        matcher = pattern
                    } else {
                        var pattern: [UInt8] = []
                        try evaluate(reference.word, lookup, template: template, into: &pattern)
                        matcher = ShellPattern(String(decoding: pattern, as: UTF8.self))
                    }
                    if case .removePrefix = reference.operation {
                        out += matcher.removingPrefix(of: value, longest: longest).utf8
                    } else {
                        out += matcher.removingSuffix(of: value, longest: longest).utf8
                    }
                }
            }
        }
    }
}
