/// The names a command sets itself, whose values in the shell are no longer what opsrun knows:
/// `for V in 1 2; do echo $V; done` echoes 1 and 2, whatever `env` says V is. A conservative
/// textual scan: it may find a name that is not set (a prompt after `read -p`) and then only
/// leaves that name as written.
///
/// Found: `NAME=` (and `NAME+=`, `NAME[i]=`) starting a word in command position (`V=1; ...`,
/// `V=1 cmd`); every name after `export`, `local`, `readonly`, `declare`, `typeset`, `unset`,
/// `read` and `getopts` in their command; the name after `for` and `select`; and `${NAME=word}`
/// or `${NAME:=word}` anywhere. Not found: what `eval`, `.`, `let`, `printf -v`, `mapfile` or
/// arithmetic (`$((N += 1))`) set, and what a function called later sets.
enum ShellAssignedNames {
    /// The names the command (its UTF-8 bytes) sets, found as above.
    static func of(_ bytes: [UInt8]) -> Set<String> {
        var names = namesAssignedByExpansions(bytes)
        var atCommandStart = true
        var namesFollow = false  // after `export`, `unset`, `read`...: every name word counts
        var loopNameFollows = false
        for token in tokens(bytes) {
            guard let word = token else {
                (atCommandStart, namesFollow, loopNameFollows) = (true, false, false)
                continue
            }
            if loopNameFollows || namesFollow {
                if let name = assignedName(in: bytes, word) ?? (isName(in: bytes, word) ? String(decoding: bytes[word], as: UTF8.self) : nil) {
                    names.insert(name)
                }
                loopNameFollows = false
                continue
            }
            guard atCommandStart else { continue }
            if let name = assignedName(in: bytes, word) {
                names.insert(name)  // `A=1 B=2 cmd`: still before the command
            } else if reservedWords.contains(where: { bytes[word].elementsEqual($0) }) {
                continue  // `then V=1`, `do read V`: a command follows
            } else if bytes[word].elementsEqual("for".utf8) || bytes[word].elementsEqual("select".utf8) {
                loopNameFollows = true
                atCommandStart = false
            } else {
                namesFollow = commandsSettingNames.contains { bytes[word].elementsEqual($0) }
                atCommandStart = false
            }
        }
        return names
    }

    // Words as bytes, compared in place: a `-n` of 100,000 instances scans every command.

    /// Words after which a command begins.
    static let reservedWords: [[UInt8]] = [
        "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time",
    ].map { Array($0.utf8) }

    /// Commands that set or unset the names they are given.
    static let commandsSettingNames: [[UInt8]] = [
        "export", "local", "readonly", "declare", "typeset", "unset", "read", "getopts",
    ].map { Array($0.utf8) }

    /// `NAME` of the word at `word` of `bytes` when it starts `NAME=`, `NAME+=` or `NAME[`.
    static func assignedName(in bytes: [UInt8], _ word: Range<Int>) -> String? {
        let end = ShellSyntax.endOfName(bytes, from: word.lowerBound)
        guard end > word.lowerBound, end < word.upperBound else { return nil }
        let assigns = bytes[end] == UInt8(ascii: "=") || bytes[end] == UInt8(ascii: "[")
            || (bytes[end] == UInt8(ascii: "+") && end + 1 < word.upperBound && bytes[end + 1] == UInt8(ascii: "="))
        return assigns ? String(decoding: bytes[word.lowerBound..<end], as: UTF8.self) : nil
    }

    static func isName(in bytes: [UInt8], _ word: Range<Int>) -> Bool {
        !word.isEmpty && ShellSyntax.endOfName(bytes, from: word.lowerBound) >= word.upperBound
    }

    /// The command's words as written (quotes kept), as ranges of `bytes`; `nil` for each
    /// operator or newline that ends a command (`;`, `&`, `|`, `(`, `)`). Redirections (`<`,
    /// `>`) only end a word; here-document bodies are skipped, as are comments.
    static func tokens(_ bytes: [UInt8]) -> [Range<Int>?] {
        var tokens: [Range<Int>?] = []
        var wordStart: Int? = nil
        var hereDocuments: [ShellSyntax.HereDocument] = []
        var i = 0
        func endWord() {
            if let start = wordStart { tokens.append(start..<min(i, bytes.count)) }
            wordStart = nil
        }
        while i < bytes.count {
            let byte = bytes[i]
            if ShellSyntax.isBlank(byte) || ShellSyntax.isOperator(byte) {
                endWord()
                if byte == UInt8(ascii: "<") {
                    if let (document, end) = ShellSyntax.hereDocument(bytes, at: i) {
                        hereDocuments.append(document)
                        i = end
                    } else {
                        i = ShellSyntax.endOfLessThanSigns(bytes, at: i)
                    }
                    continue
                }
                if byte == UInt8(ascii: "\n") || !(ShellSyntax.isBlank(byte) || byte == UInt8(ascii: ">")) {
                    tokens.append(nil)
                }
                i += 1
                if byte == UInt8(ascii: "\n") {
                    for document in hereDocuments { i = ShellSyntax.body(of: document, bytes, from: i).end }
                    hereDocuments = []
                }
                continue
            }
            if byte == UInt8(ascii: "#"), wordStart == nil {
                i = ShellSyntax.endOfLine(bytes, from: i)
                continue
            }
            if wordStart == nil { wordStart = i }
            switch byte {
            case UInt8(ascii: "'"): i = ShellSyntax.endOfSingleQuotes(bytes, at: i)
            case UInt8(ascii: "\""): i = ShellSyntax.endOfDoubleQuotes(bytes, at: i)
            case UInt8(ascii: "`"): i = ShellSyntax.endOfBackquotes(bytes, at: i)
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "$") where ShellSyntax.startsCommandSubstitution(bytes, at: i):
                i = ShellSyntax.endOfCommandSubstitution(bytes, at: i)
            default: i += 1
            }
        }
        endWord()
        return tokens
    }

    /// Names in `${NAME=word}` and `${NAME:=word}`, which assign `word` when NAME is unset (or
    /// empty). Anywhere, quoted or not: a name too many only stays as written.
    static func namesAssignedByExpansions(_ bytes: [UInt8]) -> Set<String> {
        var names: Set<String> = []
        var i = 0
        while let dollar = bytes[i...].firstIndex(of: UInt8(ascii: "$")) {
            i = dollar + 1
            guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { continue }
            let end = ShellSyntax.endOfName(bytes, from: i + 1)
            guard end > i + 1, end < bytes.count else { continue }
            let rest = bytes[end...]
            if rest.starts(with: "=".utf8) || rest.starts(with: ":=".utf8) {
                names.insert(String(decoding: bytes[(i + 1)..<end], as: UTF8.self))
            }
        }
        return names
    }
}
