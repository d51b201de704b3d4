/// A shell pattern, as `${NAME#pattern}` and `${NAME%pattern}` use it (POSIX "Pattern Matching
/// Notation"): `*` any text, `?` any one character, `[...]` one character of a set (`[!...]` or
/// `[^...]` not of it, with ranges `a-z` and classes `[:alpha:]`), `\` makes the next character
/// literal. A `[` without its `]` is a literal `[`, as in dash and bash.
///
/// Characters are Unicode scalars (bash in a UTF-8 locale; dash would count bytes).
struct ShellPattern: Sendable {
    private enum Token: Sendable {
        case literal(Unicode.Scalar)
        case any
        case star
        case set(negated: Bool, members: [SetMember])
    }

    private enum SetMember: Sendable {
        case scalar(Unicode.Scalar)
        case range(Unicode.Scalar, Unicode.Scalar)
        case named(String)
    }

    private let tokens: [Token]
    /// The pattern's bytes when it has no wildcard (`.c`, `src/`: nearly every pattern in a
    /// manifest): removing it is a comparison of bytes. In a 300-file `each` no-op the general
    /// walk cost 11 % of opsrun's instructions (callgrind).
    private let literal: [UInt8]?

    init(_ pattern: String) {
        let scalars = Array(pattern.unicodeScalars)
        var tokens: [Token] = []
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            switch c {
            case "*":
                // `**` is `*`: one token keeps matching linear in the stars.
                if case .star? = tokens.last {} else { tokens.append(.star) }
                i += 1
            case "?":
                tokens.append(.any)
                i += 1
            case "\\" where i + 1 < scalars.count:
                tokens.append(.literal(scalars[i + 1]))
                i += 2
            case "[":
                if let (set, end) = Self.bracket(scalars, from: i) {
                    tokens.append(set)
                    i = end
                } else {
                    tokens.append(.literal("["))
                    i += 1
                }
            default:
                tokens.append(.literal(c))
                i += 1
            }
        }
        self.tokens = tokens
        var literal: [UInt8] = []
        for token in tokens {
            guard case .literal(let scalar) = token else {
                self.literal = nil
                return
            }
            literal += String(scalar).utf8
        }
        self.literal = literal
    }

    /// The set that starts at `scalars[start]` (a `[`) and the index after its `]`; nil when no
    /// `]` closes it.
    private static func bracket(_ scalars: [Unicode.Scalar], from start: Int) -> (Token, Int)? {
        var i = start + 1
        var negated = false
        if i < scalars.count, scalars[i] == "!" || scalars[i] == "^" {
            negated = true
            i += 1
        }
        var members: [SetMember] = []
        var first = true
        while i < scalars.count {
            var c = scalars[i]
            // A `]` first in the set is one of its members.
            if c == "]" && !first { return (.set(negated: negated, members: members), i + 1) }
            first = false
            if c == "[", i + 1 < scalars.count, scalars[i + 1] == ":",
                let close = closingClass(scalars, from: i + 2)
            {
                members.append(.named(String(String.UnicodeScalarView(scalars[(i + 2)..<close]))))
                i = close + 2
                continue
            }
            if c == "\\", i + 1 < scalars.count {
                i += 1
                c = scalars[i]
            }
            if i + 2 < scalars.count, scalars[i + 1] == "-", scalars[i + 2] != "]" {
                var upper = scalars[i + 2]
                var next = i + 3
                if upper == "\\", i + 3 < scalars.count {
                    upper = scalars[i + 3]
                    next = i + 4
                }
                members.append(.range(c, upper))
                i = next
            } else {
                members.append(.scalar(c))
                i += 1
            }
        }
        return nil
    }

    /// The index of the `:` of the `:]` that ends a class name starting at `start`.
    private static func closingClass(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var i = start
        while i + 1 < scalars.count {
            if scalars[i] == ":" && scalars[i + 1] == "]" { return i }
            guard scalars[i].properties.isAlphabetic else { return nil }
            i += 1
        }
        return nil
    }

    /// Whether the pattern matches all of `text`.
    func matches(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
        // The classic walk with one remembered star: on a mismatch, the last star takes one more
        // character. Every other token takes exactly one, so this finds a match if there is one.
        var t = 0
        var s = text.startIndex
        var starToken = -1
        var starText = s
        while s < text.endIndex {
            if t < tokens.count, case .star = tokens[t] {
                starToken = t
                starText = s
                t += 1
            } else if t < tokens.count, Self.matches(tokens[t], text[s]) {
                t += 1
                s += 1
            } else if starToken >= 0 {
                t = starToken + 1
                starText += 1
                s = starText
            } else {
                return false
            }
        }
        while t < tokens.count, case .star = tokens[t] { t += 1 }
        return t == tokens.count
    }

    private static func matches(_ token: Token, _ c: Unicode.Scalar) -> Bool {
        switch token {
        case .literal(let l): return l == c
        case .any: return true
        case .star: return true
        case .set(let negated, let members):
            let found = members.contains { member in
                switch member {
                case .scalar(let m): m == c
                case .range(let low, let high): low.value <= c.value && c.value <= high.value
                case .named(let name): inClass(name, c)
                }
            }
            return found != negated
        }
    }

    private static func inClass(_ name: String, _ c: Unicode.Scalar) -> Bool {
        let p = c.properties
        switch name {
        case "alpha": return p.isAlphabetic
        case "digit": return ("0"..."9").contains(c)
        case "alnum": return p.isAlphabetic || ("0"..."9").contains(c)
        case "upper": return p.isUppercase
        case "lower": return p.isLowercase
        case "space": return p.isWhitespace
        case "blank": return c == " " || c == "\t"
        case "punct": return c.isASCII && (0x21...0x7E).contains(c.value) && !p.isAlphabetic && !("0"..."9").contains(c)
        case "xdigit": return c.isASCII && (("0"..."9").contains(c) || ("a"..."f").contains(c) || ("A"..."F").contains(c))
        case "cntrl": return c.value < 0x20 || c.value == 0x7F
        case "print": return c.value >= 0x20 && c.value != 0x7F
        case "graph": return c.value > 0x20 && c.value != 0x7F && !p.isWhitespace
        default: return false
        }
    }

    /// `${NAME#pattern}` (shortest) and `${NAME##pattern}` (longest): `value` without the prefix
    /// the pattern matches; all of it when none does.
    func removingPrefix(of value: String, longest: Bool) -> String {
        if let literal {
            return value.utf8.starts(with: literal) ? String(decoding: value.utf8.dropFirst(literal.count), as: UTF8.self) : value
        }
        let (scalars, offsets) = Self.scalarsAndOffsets(value)
        for i in 0...scalars.count {
            let length = longest ? scalars.count - i : i
            if matches(scalars[..<length]) { return String(decoding: value.utf8.dropFirst(offsets[length]), as: UTF8.self) }
        }
        return value
    }

    /// `${NAME%pattern}` (shortest) and `${NAME%%pattern}` (longest): `value` without the suffix
    /// the pattern matches; all of it when none does.
    func removingSuffix(of value: String, longest: Bool) -> String {
        if let literal {
            return value.utf8.reversed().starts(with: literal.reversed())
                ? String(decoding: value.utf8.dropLast(literal.count), as: UTF8.self) : value
        }
        let (scalars, offsets) = Self.scalarsAndOffsets(value)
        for i in 0...scalars.count {
            let start = longest ? i : scalars.count - i
            if matches(scalars[start...]) { return String(decoding: value.utf8.prefix(offsets[start]), as: UTF8.self) }
        }
        return value
    }

    /// The value's scalars, and the UTF-8 offset of each (and of the end), so that what is kept
    /// is cut from the bytes rather than rebuilt scalar by scalar.
    private static func scalarsAndOffsets(_ value: String) -> ([Unicode.Scalar], [Int]) {
        var scalars: [Unicode.Scalar] = []
        var offsets: [Int] = []
        var offset = 0
        for scalar in value.unicodeScalars {
            scalars.append(scalar)
            offsets.append(offset)
            offset += UTF8.width(scalar)
        }
        offsets.append(offset)
        return (scalars, offsets)
    }
}
