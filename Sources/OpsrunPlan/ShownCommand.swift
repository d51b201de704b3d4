import OpsrunCore

import OpsrunManifest
/// A command as `-n` and `-v` show it (issue 15): `$NAME` and `${NAME}` replaced by the values
/// opsrun knows, as `make -n` prints `cc -O2 -c src/a.c`, while the shell still runs the command
/// as written.
///
/// Known are the variables opsrun itself sets: the `dotenv` files, the manifest's and the task's
/// `env`, `NAME=VALUE` arguments, an instance's `each` variables and `OPSRUN_TASK`, never what
/// opsrun inherited (`$HOME`, `$PATH`, a CI token): those print as written. Left as written too:
/// text in single quotes (the shell expands nothing there), a `$` after a backslash, `$1`, `$@`
/// and the other special parameters, `$(...)` and backquotes, unknown names, and a `${...}`
/// that is not one of the forms `Interpolation` expands or whose name is not known (`${X:-d}`
/// with X unknown could be set in the shell's environment, so is not replaced by `d`).
public enum ShownCommand {
    /// `command` with the variables `known` has a value for substituted.
    public static func substitute(_ command: String, known: (String) -> String?) -> String {
        guard UTF8Text.contains(UInt8(ascii: "$"), in: command) else { return command }
        let bytes = Array(command.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        var inDoubleQuotes = false
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "'") where !inDoubleQuotes:
                // Verbatim to the closing quote.
                let end = bytes[(i + 1)...].firstIndex(of: UInt8(ascii: "'")).map { $0 + 1 } ?? bytes.count
                out += bytes[i..<end]
                i = end
            case UInt8(ascii: "\\"):
                out += bytes[i..<min(i + 2, bytes.count)]
                i += 2
            case UInt8(ascii: "\""):
                inDoubleQuotes.toggle()
                out.append(byte)
                i += 1
            case UInt8(ascii: "$"):
                let (replacement, end) = variable(in: bytes, at: i, known: known)
                if let replacement { out += replacement.utf8 } else { out += bytes[i..<end] }
                i = end
            default:
                out.append(byte)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
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
