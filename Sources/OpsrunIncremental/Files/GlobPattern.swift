// Globs as shells and make users know them, so `sources:` reads without surprises:
//   *       any run of characters within one path segment
//   ?       one character
//   [a-z]   one character of a class; [!a-z] or [^a-z] negates it; a leading ] is literal
//   **      as a whole segment: any number of directories, zero included (`src/**/*.c` matches
//           `src/a.c` and `src/x/y/a.c`); a trailing `**` means every file beneath
//   \x      x itself
// Hidden names follow the shell: `*`, `?` and a class never match a leading `.`, and `**` never
// descends into a hidden directory; write the dot (`.config/*`) to reach one. `.git` and `.opsrun`
// are never matched by a wildcard at all. Matching is iterative (a greedy star with one backtrack
// point inside a segment, a table across segments), so no input can exhaust the stack or blow up.

/// A parsed glob pattern over `/`-separated paths.
public struct GlobPattern: Hashable, Sendable, CustomStringConvertible {
    /// One `/`-separated part of a pattern.
    enum Segment: Hashable, Sendable {
        /// A plain name (escapes removed): compared as is.
        case literal(String)
        case wildcard(SegmentMatcher)
        /// `**`: zero or more non-hidden directories.
        case anyDirectories
    }

    /// The pattern as written.
    public let text: String
    let isAbsolute: Bool
    let segments: [Segment]
    /// `**` descends into hidden directories and the final `*` matches hidden names too: only
    /// in `everyFile(beneath:)`, whose only wildcard is that final `*`.
    private(set) var includesHiddenNames = false

    /// Names that a wildcard never matches: version control and opsrun's own state.
    static let alwaysSkipped: Set<String> = [".git", ".opsrun"]

    public init(_ text: String) {
        self.text = text
        isAbsolute = text.hasPrefix("/")
        var segments: [Segment] = []
        for part in text.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
            if part == "**" {
                // `a/**/**/b` is `a/**/b`.
                if segments.last != .anyDirectories { segments.append(.anyDirectories) }
                continue
            }
            let matcher = SegmentMatcher(part)
            segments.append(matcher.literal.map(Segment.literal) ?? .wildcard(matcher))
        }
        // A trailing `**` names every file beneath: `**/*` (a bare `*` here still skips hidden files).
        if segments.last == .anyDirectories { segments.append(.wildcard(SegmentMatcher("*"))) }
        self.segments = segments
    }

    /// Every file beneath `directory` (a path without wildcards), hidden ones included: what a
    /// directory named in `sources` or `outputs` stands for (`directory/**` would skip
    /// `.config`). `.git` and `.opsrun` are skipped still.
    static func everyFile(beneath directory: String) -> GlobPattern {
        // `.` (the task's own directory, normalized to nothing) is `**`, never `/**`: the whole
        // file system.
        let base = directory.isEmpty || directory == "." ? "" : directory.hasSuffix("/") ? directory : directory + "/"
        var pattern = GlobPattern(base + "**")
        pattern.includesHiddenNames = true
        return pattern
    }

    /// The normalized path `text` names when it has no wildcard and no escape (`./a//b` is `a/b`),
    /// as `GlobPattern(text).literalPath` would give, without parsing a pattern: a no-op run asks
    /// this of every source and output. `nil` when the text has `*`, `?`, `[` or `\`.
    package static func literalPath(of text: String) -> String? {
        // On the bytes in place: walking the `utf8` view cost about 470 instructions a path, and a
        // 10,000-task no-op asks 40,000 times (callgrind).
        let scanned = text.utf8.withContiguousStorageIfAvailable { bytes in scanLiteral(bytes) }
        guard let needsNormalizing = scanned ?? scanLiteral(Array(text.utf8)) else { return nil }
        if !needsNormalizing { return text }
        let names = text.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return (text.hasPrefix("/") ? "/" : "") + names.joined(separator: "/")
    }

    /// Whether a path's bytes need normalizing (`a//b`, `./a`, a trailing `/`), or `nil` when they
    /// hold a wildcard or an escape.
    private static func scanLiteral<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool? {
        var needsNormalizing = false
        var atSegmentStart = true
        var segmentIsDot = false
        var isFirst = true
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "["), UInt8(ascii: "\\"): return nil
            case UInt8(ascii: "/"):
                // An empty segment (`a//b`) or a `.` one (`./a`, `a/./b`); a leading `/` is the root.
                if !isFirst && (atSegmentStart || segmentIsDot) { needsNormalizing = true }
                atSegmentStart = true
                segmentIsDot = false
            default:
                segmentIsDot = atSegmentStart && byte == UInt8(ascii: ".")
                atSegmentStart = false
            }
            isFirst = false
        }
        // A trailing `/` or `/.`, the text `.`, or an empty text.
        return needsNormalizing || atSegmentStart || segmentIsDot
    }

    /// Whether the pattern has any wildcard; without one it names exactly one path.
    public var hasWildcards: Bool {
        segments.contains { if case .literal = $0 { false } else { true } }
    }

    /// The path a pattern without wildcards names, normalized (`./a//b` is `a/b`).
    var literalPath: String {
        let names = segments.map { segment -> String in
            if case .literal(let name) = segment { return name }
            return ""
        }
        return (isAbsolute ? "/" : "") + names.joined(separator: "/")
    }

    public var description: String { text }

    /// Whether `path` (relative, or absolute for an absolute pattern) matches the whole pattern.
    public func matches(_ path: String) -> Bool {
        guard path.hasPrefix("/") == isAbsolute else { return false }
        let names = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        // reachable[j]: the segments seen so far can match the first j names.
        var reachable = [Bool](repeating: false, count: names.count + 1)
        reachable[0] = true
        for segment in segments {
            var next = [Bool](repeating: false, count: names.count + 1)
            for j in 0...names.count {
                switch segment {
                case .anyDirectories:
                    // Zero names, or one more name that `**` may descend into.
                    next[j] = reachable[j]
                        || (j > 0 && next[j - 1] && (includesHiddenNames || !names[j - 1].hasPrefix(".")))
                case .literal(let name):
                    next[j] = j > 0 && reachable[j - 1] && names[j - 1] == name
                case .wildcard(let matcher):
                    next[j] = j > 0 && reachable[j - 1]
                        && !Self.alwaysSkipped.contains(String(names[j - 1]))
                        && (includesHiddenNames || matcher.matches(names[j - 1]))
                }
            }
            reachable = next
        }
        return reachable[names.count]
    }
}

/// Matches one path segment against `*`, `?`, `[...]` and literal characters.
struct SegmentMatcher: Hashable, Sendable {
    enum Token: Hashable, Sendable {
        case character(Unicode.Scalar)
        case anyCharacter
        case star
        case characterClass(negated: Bool, ranges: [ClosedRange<UInt32>])
    }

    let tokens: [Token]

    init<S: StringProtocol>(_ text: S) {
        let scalars = Array(text.unicodeScalars)
        var tokens: [Token] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\\" where index + 1 < scalars.count:
                tokens.append(.character(scalars[index + 1]))
                index += 2
            case "*":
                if tokens.last != .star { tokens.append(.star) }
                index += 1
            case "?":
                tokens.append(.anyCharacter)
                index += 1
            case "[":
                if let (token, end) = Self.characterClass(scalars, openingAt: index) {
                    tokens.append(token)
                    index = end + 1
                } else {
                    // An unclosed `[` is an ordinary character, as in the shell.
                    tokens.append(.character(scalar))
                    index += 1
                }
            default:
                tokens.append(.character(scalar))
                index += 1
            }
        }
        self.tokens = tokens
    }

    /// `[...]` starting at `start`: the token and the index of its closing `]`, or `nil` if unclosed.
    private static func characterClass(_ scalars: [Unicode.Scalar], openingAt start: Int) -> (Token, Int)? {
        var index = start + 1
        var negated = false
        if index < scalars.count, scalars[index] == "!" || scalars[index] == "^" {
            negated = true
            index += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        while index < scalars.count {
            var low = scalars[index]
            if low == "]" && !first { return (.characterClass(negated: negated, ranges: ranges), index) }
            first = false
            if low == "\\", index + 1 < scalars.count {
                index += 1
                low = scalars[index]
            }
            // `a-z` is a range; a `-` first or last is itself.
            if index + 2 < scalars.count, scalars[index + 1] == "-", scalars[index + 2] != "]" {
                var high = scalars[index + 2]
                index += 2
                if high == "\\", index + 1 < scalars.count {
                    index += 1
                    high = scalars[index]
                }
                if low.value <= high.value { ranges.append(low.value...high.value) }
            } else {
                ranges.append(low.value...low.value)
            }
            index += 1
        }
        return nil
    }

    /// The plain name when there is no wildcard, e.g. `main.c` or `a\*b` (which is `a*b`).
    var literal: String? {
        var text = String.UnicodeScalarView()
        for token in tokens {
            guard case .character(let scalar) = token else { return nil }
            text.append(scalar)
        }
        return String(text)
    }

    func matches<S: StringProtocol>(_ name: S) -> Bool {
        let scalars = Array(name.unicodeScalars)
        // A leading dot is matched only by a literal dot.
        if scalars.first == ".", tokens.first != .character(".") { return false }
        var token = 0
        var position = 0
        // The most recent star and where its match would end if it took one more character.
        var starToken = -1
        var starResume = 0
        while position < scalars.count {
            if token < tokens.count, tokens[token] == .star {
                starToken = token
                starResume = position
                token += 1
            } else if token < tokens.count, Self.token(tokens[token], matches: scalars[position]) {
                token += 1
                position += 1
            } else if starToken >= 0 {
                // A star only needs its latest occurrence to backtrack: it can absorb anything.
                token = starToken + 1
                starResume += 1
                position = starResume
            } else {
                return false
            }
        }
        while token < tokens.count, tokens[token] == .star { token += 1 }
        return token == tokens.count
    }

    private static func token(_ token: Token, matches scalar: Unicode.Scalar) -> Bool {
        switch token {
        case .character(let expected): return expected == scalar
        case .anyCharacter: return true
        case .star: return false
        case .characterClass(let negated, let ranges):
            return ranges.contains { $0.contains(scalar.value) } != negated
        }
    }
}
