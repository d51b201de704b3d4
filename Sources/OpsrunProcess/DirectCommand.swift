/// Tells apart a command `/bin/sh -c` would only split into words and exec (`/bin/true`,
/// `touch out/a`) from one that needs the shell, so the former can be spawned directly (as make
/// does), saving one exec per command. Measured: with every command through `sh -c`, 2,000
/// `/bin/true` at `-j 2` took 2.01× as long (fan-in; DAG 2.04×, chain 2.12×; Benchmarks/README.md).
///
/// Conservative on purpose: any character with a meaning to the shell, and any first word that is
/// a keyword or a builtin (other than `true` and `false`, whose programs do the same), means the
/// shell.
enum DirectCommand {
    /// The words of `command` when it can run without a shell; nil when it needs one.
    static func arguments(of command: String) -> [String]? {
        var words: [String] = []
        var start: String.UTF8View.Index?
        let utf8 = command.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x20 || byte == 0x09 {
                if let wordStart = start {
                    words.append(String(command[wordStart..<index]))
                    start = nil
                }
            } else {
                if byte < 0x20 || byte == 0x7F || shellBytes[Int(byte)] { return nil }
                if start == nil { start = index }
            }
            index = utf8.index(after: index)
        }
        if let wordStart = start {
            words.append(String(command[wordStart..<utf8.endIndex]))
        }
        // A name with a slash is never a keyword or builtin: the shell execs it as a path.
        guard let first = words.first,
            first.utf8.contains(UInt8(ascii: "/")) || !shellWords.contains(first)
        else { return nil }
        return words
    }

    /// Quotes, expansions, globs, redirections, pipes, separators, grouping, comments, history and
    /// job-control characters, assignments, and the backslash (make's list and then some).
    private static let shellBytes: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "'\"`$&|;<>()*?[]#~=%!{}^\\".utf8 {
            table[Int(byte)] = true
        }
        return table
    }()

    /// Keywords and builtins of dash and bash, whose meaning a program of the same name need not
    /// share (`echo -e`, `pwd`, `kill %1`, `cd`, `exec`, ...).
    private static let shellWords: Set<String> = [
        "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
        "do", "done", "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]",
        ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "chdir",
        "command", "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown",
        "echo", "enable", "eval", "exec", "exit", "export", "fc", "fg", "getopts", "hash", "help",
        "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd",
        "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt", "source",
        "suspend", "test", "times", "trap", "type", "typeset", "ulimit", "umask", "unalias",
        "unset", "wait",
    ]
}
