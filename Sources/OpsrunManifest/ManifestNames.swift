/// The spelling rules for names a manifest declares: tasks, queues and environment variables.
enum ManifestNames {
    /// Why `name` cannot name a task (or a queue, with `noun` "queue"), or `nil` when it can.
    ///
    /// Letters, digits, `_ - . :`; never `=`, which marks a `NAME=VALUE` argument, and no leading
    /// `-`, which would read as an option on the command line.
    static func problem(withName name: String, noun: String = "task") -> String? {
        if isPlainName(name) { return nil }
        if name.isEmpty { return "a \(noun) name cannot be empty" }
        if name.hasPrefix("-") {
            return "invalid \(noun) name '\(name)': it cannot begin with '-', which marks an option"
        }
        for character in name where !isNameCharacter(character) {
            if character == "=" {
                return "invalid \(noun) name '\(name)': '=' is not allowed, as it marks a NAME=VALUE argument"
            }
            // A namespace cannot hold ':', which separates it from a task's name (`IncludeEntry`).
            let allowed = noun == "namespace" ? "'_', '-' and '.'" : "'_', '-', '.' and ':'"
            return "invalid \(noun) name '\(name)': \(shown(character)) is not allowed; use ASCII letters, digits, \(allowed)"
        }
        return nil
    }

    /// The common case, decided on bytes: not empty, no leading `-`, only allowed ASCII.
    private static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "-") else { return false }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"),
                UInt8(ascii: "."), UInt8(ascii: ":"):
                true
            default: false
            }
        }
    }

    static func isNameCharacter(_ c: Character) -> Bool {
        guard c.isASCII else { return false }
        return c.isLetter || c.isNumber || c == "_" || c == "-" || c == "." || c == ":"
    }

    /// A character as a message quotes it; blanks are named since a quoted space is easy to miss.
    static func shown(_ c: Character) -> String {
        switch c {
        case " ": "a space"
        case "\t": "a tab"
        default: "'\(c)'"
        }
    }

    /// Whether `name` is a portable environment variable name: `[A-Za-z_][A-Za-z0-9_]*`.
    static func isEnvironmentName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
    }

    static func isEnvironmentName(_ name: String) -> Bool { isEnvironmentName(name[...]) }

    /// `'a', 'b' or 'c'` — allowed values listed in a message.
    static func alternatives(_ values: [String]) -> String {
        guard values.count > 1 else { return values.first ?? "" }
        return values.dropLast().joined(separator: ", ") + " or " + values.last!
    }
}
