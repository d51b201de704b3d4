/// How `-n` and `-v` show the arguments after `--` beside a command (docs/manual/arguments.md):
/// `$ pytest "$@"  # args: -v '-k foo'`, each argument quoted as a shell would need it, so the
/// list reads back exactly.
package enum ArgumentsNote {
    /// `command` with the note after its last line; `command` itself when there are no arguments.
    static func appended(to command: String, _ arguments: [String]) -> String {
        guard !arguments.isEmpty else { return command }
        var text = Substring(command)
        // A block scalar's final newline would put the note on a line of its own.
        while text.last?.isNewline == true { text.removeLast() }
        return text + "  # args: " + arguments.map(quoted).joined(separator: " ")
    }

    /// `word` as one shell word: as is when it needs no quoting, else in single quotes.
    package static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: "_-+=.,/:@%".utf8.contains(byte)
            }
        }
        if plain { return word }
        return "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
