import OpsrunCore
import OpsrunManifest

/// A command as `-n` and `-v` show it (issue 15): `$NAME` and `${NAME}` replaced by the values
/// opsrun knows, as `make -n` prints `cc -O2 -c src/a.c`, while the shell still runs the command
/// as written. The rule: the shown command never shows something the real run would not do; when
/// in doubt, text stays as written.
///
/// Known are the variables opsrun itself sets: the `dotenv` files, the manifest's and the task's
/// `env`, `NAME=VALUE` arguments, an instance's `each` variables and `OPSRUN_TASK`, never what
/// opsrun inherited (`$HOME`, `$PATH`, a CI token): those print as written. Left as written too:
/// - text in single quotes (the shell expands nothing there), a `$` after a backslash, comments;
/// - `$1`, `$@` and the other special parameters, unknown names, and a `${...}` that is not one
///   of the forms `Interpolation` expands or whose name is not known (`${X:-d}` with X unknown
///   could be set in the shell's environment, so is not replaced by `d`);
/// - `$(...)`, `$((...))` and backquotes, whole: what runs inside is the shell's business;
/// - the body of a here-document whose delimiter is quoted (`<<'EOF'`, `<<"EOF"`, `<<\EOF`);
/// - every use of a name the command sets itself (`for V in`, `V=1`, `unset V`, `read V`:
///   `ShellAssignedNames`), before or after it sets it;
/// - a value that pasted would read differently and cannot be quoted to read the same
///   (`PastedValue`: in double quotes `\`, `"`, `$` and backquote are escaped; outside quotes a
///   field with quotes, `$`, `;`... is single-quoted).
public enum ShownCommand {
    /// `command` with the variables `known` has a value for substituted.
    public static func substitute(_ command: String, known: (String) -> String?) -> String {
        guard UTF8Text.contains(UInt8(ascii: "$"), in: command) else { return command }
        let bytes = Array(command.utf8)
        let setByCommand = ShellAssignedNames.of(bytes)
        return withoutActuallyEscaping(known) { known in
            var substitution = Substitution(bytes: bytes) { setByCommand.contains($0) ? nil : known($0) }
            substitution.run()
            return String(decoding: substitution.out, as: UTF8.self)
        }
    }

    /// One walk over a command, copying it to `out` with the known variables' values pasted.
    struct Substitution {
        let bytes: [UInt8]
        let known: (String) -> String?
        var out: [UInt8] = []

        mutating func run() {
            out.reserveCapacity(bytes.count)
            var inDoubleQuotes = false
            var wordStart = 0  // outside quotes, to tell `FLAGS=$CFLAGS` from `$CFLAGS`
            var hereDocuments: [ShellSyntax.HereDocument] = []  // whose bodies follow the next newline
            var i = 0
            while i < bytes.count {
                let byte = bytes[i]
                switch byte {
                case UInt8(ascii: "'") where !inDoubleQuotes:
                    i = copy(i..<ShellSyntax.endOfSingleQuotes(bytes, at: i))
                case UInt8(ascii: "\\"):
                    i = copy(i..<min(i + 2, bytes.count))
                case UInt8(ascii: "`"):
                    i = copy(i..<ShellSyntax.endOfBackquotes(bytes, at: i))
                case UInt8(ascii: "$") where ShellSyntax.startsCommandSubstitution(bytes, at: i):
                    i = copy(i..<ShellSyntax.endOfCommandSubstitution(bytes, at: i))
                case UInt8(ascii: "$"):
                    let place: PastedValue.Place =
                        inDoubleQuotes ? .doubleQuotes
                        : ShellAssignedNames.assignedName(in: bytes, wordStart..<i) != nil
                            ? .assignment : .unquoted
                    i = paste(at: i, place)
                case UInt8(ascii: "\""):
                    inDoubleQuotes.toggle()
                    i = copy(i..<i + 1)
                case UInt8(ascii: "#") where !inDoubleQuotes && ShellSyntax.startsWord(bytes, at: i):
                    i = copy(i..<ShellSyntax.endOfLine(bytes, from: i))
                case UInt8(ascii: "<") where !inDoubleQuotes:
                    if let (document, end) = ShellSyntax.hereDocument(bytes, at: i) {
                        hereDocuments.append(document)
                        i = copy(i..<end)
                    } else {
                        i = copy(i..<ShellSyntax.endOfLessThanSigns(bytes, at: i))
                    }
                    wordStart = i
                case UInt8(ascii: "\n") where !inDoubleQuotes:
                    i = copy(i..<i + 1)
                    for document in hereDocuments {
                        let (body, end) = ShellSyntax.body(of: document, bytes, from: i)
                        if document.isQuoted { copy(body) } else { substituteHereDocument(body) }
                        i = copy(body.upperBound..<end)
                    }
                    hereDocuments = []
                    wordStart = i
                default:
                    i = copy(i..<i + 1)
                    if !inDoubleQuotes && (ShellSyntax.isBlank(byte) || ShellSyntax.isOperator(byte)) { wordStart = i }
                }
            }
        }

        /// The body of a here-document whose delimiter is not quoted: the shell expands `$` and
        /// backquotes there, and reads quotes as themselves (`'$V'` is V's value in quotes).
        mutating func substituteHereDocument(_ body: Range<Int>) {
            var i = body.lowerBound
            while i < body.upperBound {
                switch bytes[i] {
                case UInt8(ascii: "\\"):
                    i = copy(i..<min(i + 2, body.upperBound))
                case UInt8(ascii: "`"):
                    i = copy(i..<min(ShellSyntax.endOfBackquotes(bytes, at: i), body.upperBound))
                case UInt8(ascii: "$") where ShellSyntax.startsCommandSubstitution(bytes, at: i):
                    i = copy(i..<min(ShellSyntax.endOfCommandSubstitution(bytes, at: i), body.upperBound))
                case UInt8(ascii: "$"):
                    i = paste(at: i, .hereDocument)
                default:
                    i = copy(i..<i + 1)
                }
            }
        }

        /// Copies `range` as written; returns its end.
        @discardableResult
        mutating func copy(_ range: Range<Int>) -> Int {
            out += bytes[range]
            return range.upperBound
        }

        /// Pastes the value of the `$NAME` or `${...}` at `start` when it is known and can be
        /// pasted at `place`, else copies it as written; returns its end.
        mutating func paste(at start: Int, _ place: PastedValue.Place) -> Int {
            let (value, end) = ShownCommand.variable(in: bytes, at: start, known: known)
            if let value, let text = PastedValue.text(value, in: place) {
                out += text.utf8
                return end
            }
            return copy(start..<end)
        }
    }

    /// The value of the `$NAME` or `${...}` at `start` when known, and where it ends.
    static func variable(in bytes: [UInt8], at start: Int, known: (String) -> String?) -> (String?, Int) {
        var i = start + 1
        guard i < bytes.count else { return (nil, i) }
        // `$$` (the shell's process id), `$1`, `$@`, `$?` and the like: one byte, never ours.
        if "$@*#?-!0123456789".utf8.contains(bytes[i]) { return (nil, i + 1) }
        if bytes[i] == UInt8(ascii: "{") {
            guard let close = bytes[i...].firstIndex(of: UInt8(ascii: "}")) else { return (nil, i) }
            let inner = bytes[(i + 1)..<close]
            let nameEnd = inner.firstIndex { !isNameByte($0) } ?? inner.endIndex
            let name = String(decoding: inner[inner.startIndex..<nameEnd], as: UTF8.self)
            // Nested `$`, quotes or command substitution inside: the shell's business.
            guard isName(name), known(name) != nil,
                !inner.contains(where: { [UInt8(ascii: "$"), UInt8(ascii: "`"), UInt8(ascii: "'"), UInt8(ascii: "\"")].contains($0) })
            else { return (nil, close + 1) }
            let text = String(decoding: bytes[start...close], as: UTF8.self)
            let value = try? Interpolation.expand(text) { known($0) }
            return (value, close + 1)
        }
        let nameEnd = bytes[i...].firstIndex { !isNameByte($0) } ?? bytes.count
        let name = String(decoding: bytes[i..<nameEnd], as: UTF8.self)
        guard isName(name) else { return (nil, i) }
        i = nameEnd
        return (known(name), i)
    }

    /// A byte a name may hold after its first (a digit included).
    static func isNameByte(_ byte: UInt8) -> Bool { Interpolation.isNameByte(byte, first: false) }

    /// Not empty and not starting with a digit (`$1` is a positional parameter).
    static func isName(_ name: String) -> Bool {
        guard let first = name.utf8.first else { return false }
        return !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
    }
}
