/// A `NAME=VALUE` argument of the command line (docs/manual/running.md): both argument parsers read it here, so
/// they agree on what is one and on which are refused.
public enum VariableArgument {
    /// `argument` split at its first `=`; `nil` when it has none, or a `[` comes first: then it
    /// names a task, or an instance of one (`test[OS=linux,PY=3.11]`).
    public static func split(_ argument: String) -> (name: String, value: String)? {
        guard let equals = argument.firstIndex(where: { $0 == "=" || $0 == "[" }), argument[equals] == "=" else {
            return nil
        }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// Whether `name` is a variable name a shell can read (`$NAME`): ASCII letters, digits and
    /// `_`, not starting with a digit. Any other would be set where no command can read it.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }

    /// The usage error for an argument whose name is not valid.
    public static func invalidNameMessage(_ argument: String) -> String {
        "invalid variable '\(argument)': in NAME=VALUE, NAME is letters, digits and '_', not starting with a digit"
    }
}
