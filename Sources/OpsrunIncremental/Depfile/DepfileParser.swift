// A depfile is the small Makefile a compiler writes beside its output (`cc -MD`/`-MMD`,
// `swiftc -emit-dependencies`): `build/a.o: src/a.c include/x.h \` and so on. opsrun wants only
// the files on the right of the colons: every one is an input of the task. The rules follow what
// GCC and Clang write and ninja's depfile parser reads (src/depfile_parser.in.cc), not the whole of
// make's syntax:
//   - words are separated by spaces and tabs; a newline (`\n` or `\r\n`) ends a rule; one `\`
//     before a newline continues the rule on the next line (at the very end, it ends the rule);
//   - a word ending in `:` ends the targets of its rule (`a.o b.o: x.h` has two targets; `a.o : x.h`
//     with the colon alone works too); everything after it, up to the end of the rule, is an input;
//   - `2N+1` backslashes and a space are `N` backslashes and a space inside a name (`my\ file.h`);
//     `2N` backslashes and a space are `2N` backslashes ending the name;
//   - `\#` is `#`, `\:` is `:` inside a name (a Windows drive), `$$` is `$`; any other backslash is
//     kept as it is;
//   - `-MP` adds a rule with no inputs for each header (`include/x.h:`): a target that is already
//     an input adds nothing. Such a rule may not have inputs of its own ("inputs may not also have
//     inputs", as ninja says), which catches a file that is not a depfile at all;
//   - a file with words but no colon anywhere is not a depfile; neither is one with a NUL byte or
//     names that are not UTF-8.
// An empty file (or only blank lines) is a depfile that lists nothing.

/// Reads the inputs out of a Makefile-syntax dependency file (ninja's depfile parser, in Swift).
enum DepfileParser {
    /// Why a depfile could not be read, in words for a warning.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// The inputs `bytes` lists, each once, in the order first written.
    static func inputs(of bytes: [UInt8]) throws(Malformed) -> [String] {
        var scanner = Scanner(bytes)
        var inputs: [String] = []
        var seenInputs: Set<[UInt8]> = []
        var parsingTargets = true
        var sawColon = false
        var sawWord = false
        // An input named again as a target (`-MP`'s `x.h:`): its rule may list no inputs.
        var inputAsTarget = false
        while let word = try scanner.nextWord() {
            var name = word.name
            let isInput = !parsingTargets
            if name.last == UInt8(ascii: ":") {
                name.removeLast()
                parsingTargets = false
                sawColon = true
            }
            if !name.isEmpty {
                sawWord = true
                if seenInputs.contains(name) {
                    if !isInput { inputAsTarget = true }
                } else if isInput {
                    if inputAsTarget { throw Malformed(reason: "inputs may not also have inputs") }
                    guard let text = String(validating: name, as: UTF8.self) else {
                        throw Malformed(reason: "a name is not UTF-8")
                    }
                    seenInputs.insert(name)
                    inputs.append(text)
                }
            }
            if word.endsRule {
                parsingTargets = true
                inputAsTarget = false
            }
        }
        if sawWord && !sawColon { throw Malformed(reason: "expected ':' in depfile") }
        return inputs
    }

    /// Cuts a depfile's bytes into names, undoing its escapes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// The next name (possibly empty: a separator was skipped) and whether a newline ended it;
        /// `nil` at the end.
        mutating func nextWord() throws(Malformed) -> (name: [UInt8], endsRule: Bool)? {
            guard index < bytes.count else { return nil }
            var name: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case 0:
                    throw Malformed(reason: "a NUL byte at offset \(index)")
                case UInt8(ascii: " "), UInt8(ascii: "\t"):
                    index += 1
                    return (name, false)
                case UInt8(ascii: "\n"):
                    index += 1
                    return (name, true)
                case UInt8(ascii: "\r"):
                    // `\r\n` is a newline; a lone `\r` separates, as a space does.
                    let endsRule = peek(1) == UInt8(ascii: "\n")
                    index += endsRule ? 2 : 1
                    return (name, endsRule)
                case UInt8(ascii: "$") where peek(1) == UInt8(ascii: "$"):
                    name.append(byte)
                    index += 2
                case UInt8(ascii: "\\"):
                    if let ended = backslashes(into: &name) { return (name, ended) }
                default:
                    name.append(byte)
                    index += 1
                }
            }
            return (name, false)
        }

        /// A run of backslashes at `index` and what follows it, appended to `name` as it means;
        /// `false` when it ends the name (a line continuation, or an even run before a space).
        private mutating func backslashes(into name: inout [UInt8]) -> Bool? {
            var count = 0
            while peek(count) == UInt8(ascii: "\\") { count += 1 }
            let next = peek(count)
            switch next {
            case nil where count == 1:
                // A continuation with nothing after it (a file cut short): it ends the rule.
                index += 1
                return true
            case UInt8(ascii: "\n") where count == 1:
                index += 2
                return false
            case UInt8(ascii: "\r") where count == 1 && peek(2) == UInt8(ascii: "\n"):
                index += 3
                return false
            case UInt8(ascii: " "):
                index += count + 1
                if count % 2 == 1 {
                    name += repeatElement(UInt8(ascii: "\\"), count: count / 2)
                    name.append(UInt8(ascii: " "))
                    return nil
                }
                name += repeatElement(UInt8(ascii: "\\"), count: count)
                return false
            case UInt8(ascii: "#"):
                name += repeatElement(UInt8(ascii: "\\"), count: count - 1)
                name.append(UInt8(ascii: "#"))
                index += count + 1
                return nil
            case UInt8(ascii: ":"):
                // Before a blank or the end, the colon ends a target (`c:\dir\:`): keep it as written.
                let after = peek(count + 1)
                let endsTarget = after == nil || after == UInt8(ascii: " ") || after == UInt8(ascii: "\t")
                    || after == UInt8(ascii: "\n") || after == UInt8(ascii: "\r")
                name += repeatElement(UInt8(ascii: "\\"), count: endsTarget ? count : count - 1)
                name.append(UInt8(ascii: ":"))
                index += count + 1
                return nil
            default:
                // Kept verbatim, the byte after them included (unless it ends the name or the file).
                name += repeatElement(UInt8(ascii: "\\"), count: count)
                index += count
                return nil
            }
        }

        private func peek(_ offset: Int) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }
    }
}
