/// `${NAME}` references in `env` values, `dir`, `sources` and `outputs` (SPEC §2).
public enum Interpolation {
    /// Expands `${NAME}` with `lookup` (unknown → empty string, like a shell) and `$$` → `$`. A lone `$` not followed by `{` or `$` stays as is.
    ///
    /// Text that only looks like a reference stays as written: `${` without a closing `}`, and
    /// `${...}` whose inside is not a variable name (`${}`, `${A B}`, `${x:-y}`).
    public static func expand(_ template: String, lookup: (String) -> String?) -> String {
        let bytes = Array(template.utf8)
        guard bytes.contains(UInt8(ascii: "$")) else { return template }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            guard byte == UInt8(ascii: "$"), i + 1 < bytes.count else {
                out.append(byte)
                i += 1
                continue
            }
            let next = bytes[i + 1]
            if next == UInt8(ascii: "$") {
                out.append(byte)
                i += 2
            } else if next == UInt8(ascii: "{"),
                let close = bytes[(i + 2)...].firstIndex(of: UInt8(ascii: "}")),
                case let name = String(decoding: bytes[(i + 2)..<close], as: UTF8.self),
                ManifestNames.isEnvironmentName(name)
            {
                out += (lookup(name) ?? "").utf8
                i = close + 1
            } else {
                out.append(byte)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The names `template` refers to, in order of first appearance.
    public static func references(in template: String) -> [String] {
        var names: [String] = []
        _ = expand(template) { name in
            if !names.contains(name) { names.append(name) }
            return nil
        }
        return names
    }
}
