/// The shells `--completions` writes a script for.
enum CompletionShell: String, CaseIterable {
    case bash, zsh, fish
}

/// One option as the completion scripts offer it: its spellings, what its value is, and a short
/// description (zsh and fish show it).
///
/// Kept by hand beside `OpsrunCommand`'s options; `CompletionTests` fails when `--help` names an
/// option this table lacks, so the scripts cannot fall behind.
struct CompletionOption {
    enum Value: Equatable {
        /// A flag: no value.
        case none
        /// A path to a file.
        case file
        /// A directory.
        case directory
        /// One of these words.
        case choices([String])
        /// Anything (a number, a duration): nothing to offer.
        case free
    }

    var short: Character?
    var long: String
    var value: Value
    var description: String

    /// Every option `opsrun --help` shows, in its order.
    static let all: [CompletionOption] = [
        .init(short: "f", long: "file", value: .file, description: "Use this manifest"),
        .init(short: "C", long: "directory", value: .directory, description: "Change to this directory first"),
        .init(short: "j", long: "jobs", value: .free, description: "Run at most N tasks at once"),
        .init(short: "k", long: "keep-going", value: .none, description: "Keep going after a failure"),
        .init(short: "n", long: "dry-run", value: .none, description: "Print the plan; run nothing"),
        .init(short: "B", long: "force", value: .none, description: "Run every task, even those up to date"),
        .init(short: "l", long: "list", value: .none, description: "List the tasks"),
        .init(long: "graph", value: .none, description: "Print the dependency graph"),
        .init(long: "format", value: .choices(["text", "json", "dot", "mermaid"]), description: "Format of --list, --dry-run and --graph"),
        .init(long: "output", value: .choices(["prefixed", "grouped", "interleaved"]), description: "Task output while running"),
        .init(long: "explain", value: .none, description: "Say why each task runs"),
        .init(long: "report", value: .file, description: "Write a JSON record of the run"),
        .init(long: "junit", value: .file, description: "Write a JUnit XML report"),
        .init(long: "trace", value: .file, description: "Write a Chrome trace of the run"),
        .init(long: "grace", value: .free, description: "Time between SIGTERM and SIGKILL"),
        .init(long: "color", value: .choices(["auto", "always", "never"]), description: "Colour"),
        .init(short: "q", long: "quiet", value: .none, description: "Print only failures and the summary"),
        .init(short: "v", long: "verbose", value: .none, description: "Echo each command before it runs"),
        .init(short: "w", long: "watch", value: .none, description: "Run again when sources change"),
        .init(long: "init", value: .none, description: "Write a starter Tasksfile.yaml"),
        .init(long: "completions", value: .choices(CompletionShell.allCases.map { $0.rawValue }), description: "Print a completion script"),
        .init(long: "no-cache", value: .none, description: "Neither restore from nor store in the output cache"),
        .init(long: "cache-dir", value: .directory, description: "The local output cache"),
        .init(long: "cache-size", value: .free, description: "Bound the local cache (default 5G)"),
        .init(long: "remote-cache", value: .free, description: "Share outputs through a Bazel HTTP cache at URL"),
        .init(long: "remote-cache-read-only", value: .none, description: "Restore from the remote cache, never write to it"),
        .init(long: "version", value: .none, description: "Show the version"),
        .init(short: "h", long: "help", value: .none, description: "Show help information"),
    ]

    init(short: Character? = nil, long: String, value: Value, description: String) {
        self.short = short
        self.long = long
        self.value = value
        self.description = description
    }

    /// `-f`, `--file`: every spelling.
    var spellings: [String] { (short.map { ["-\($0)"] } ?? []) + ["--" + long] }
}
