/// A JSON value whose objects keep their keys in the order written, so output is stable.
///
/// Rendered pretty with a two-space indent, `"key": value`, one element per line, and a final
/// newline — the shape `jq .` prints.
enum OrderedJSON {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([OrderedJSON])
    case object([(String, OrderedJSON)])

    /// A string, or `null` when absent.
    static func optional(_ value: String?) -> OrderedJSON { value.map(OrderedJSON.string) ?? .null }

    /// An array of strings.
    static func strings(_ values: [String]) -> OrderedJSON { .array(values.map(OrderedJSON.string)) }

    /// The whole document, ending with a newline.
    var rendered: String {
        var out = ""
        write(to: &out, indent: "")
        return out + "\n"
    }

    // Nesting is a few levels at most (object, array, object, array), so recursion is safe here.
    private func write(to out: inout String, indent: String) {
        switch self {
        case .string(let s): Self.quote(s, into: &out)
        case .int(let i): out += String(i)
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "[\n"
            let inner = indent + "  "
            for (i, item) in items.enumerated() {
                out += inner
                item.write(to: &out, indent: inner)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{\n"
            let inner = indent + "  "
            for (i, (key, value)) in members.enumerated() {
                out += inner
                Self.quote(key, into: &out)
                out += ": "
                value.write(to: &out, indent: inner)
                out += i == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func quote(_ s: String, into out: inout String) {
        out += "\""
        // Most strings (names, times, reasons) need no escape: appended whole, not scalar by scalar
        // (a 100,000-task `--report` spent a third of its time here).
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
