import OpsrunCore

/// `shell:` of a manifest or a task: the interpreter each command is handed to, as the words that
/// come before the command. The default is `/bin/sh -e -c`: `-e`, so a `run: |` block stops at
/// its first failing line, as a GitHub Actions or GitLab CI step does.
public struct ShellSpec: Equatable, Hashable, Sendable {
    /// The interpreter and its options, the command is appended (`["bash", "-e", "-o", "pipefail", "-c"]`).
    /// A program without `/` is looked for in the task's `PATH`.
    public var words: [String]
    /// Whether the task's name follows the command, as `$0` (the shells' own messages then say
    /// `build: 1: cc: not found`); a list written by hand gets only the command and the arguments
    /// after `--`.
    public var passesTaskName: Bool

    public init(words: [String], passesTaskName: Bool) {
        self.words = words
        self.passesTaskName = passesTaskName
    }

    /// `sh`: what a task without `shell:` runs with.
    public static let sh = ShellSpec(words: DefaultShell.words, passesTaskName: true)
    /// `bash`: errexit and pipefail, as GitHub Actions runs a `shell: bash` step.
    public static let bash = ShellSpec(words: ["bash", "-e", "-o", "pipefail", "-c"], passesTaskName: true)

    /// The shells named by a word.
    static let named: [String: ShellSpec] = ["sh": .sh, "bash": .bash]

    /// Reads a `shell:` value: `sh`, `bash`, or a list of words (`[python3, -c]`); `nil`, with the
    /// problem reported, for anything else.
    static func read(_ node: YAMLNode, _ what: String, into checker: inout ManifestChecker) -> ShellSpec? {
        switch node.content {
        case .scalar(let text, _):
            if let shell = named[text] { return shell }
            let words = text.split(separator: " ").joined(separator: ", ")
            // `zsh` is one letter from `sh`, but more likely meant as itself: short names get the list.
            let suggestion = text.count > 3 ? Suggestion.nearest(to: text, in: ["sh", "bash"]).map { "; did you mean '\($0)'?" } : nil
            let list = "; for another interpreter write the words before the command as a list: [\(words.isEmpty ? "zsh" : words), -c]"
            checker.error("\(what) must be 'sh', 'bash' or a list of words, not '\(text)'" + (suggestion ?? list),
                at: node.location)
            return nil
        case .sequence(let entries):
            var words: [String] = []
            for entry in entries {
                guard let text = entry.scalar, !entry.isNull, !ManifestChecker.isBlank(text) else {
                    checker.error("each word of \(what) must be a string that is not empty", at: entry.location)
                    return nil
                }
                words.append(text)
            }
            guard !words.isEmpty else {
                checker.error("\(what) is an empty list; name the interpreter, e.g. [bash, -c]", at: node.location)
                return nil
            }
            return ShellSpec(words: words, passesTaskName: false)
        case .mapping:
            checker.error("\(what) must be 'sh', 'bash' or a list of words, not \(node.kindDescription)", at: node.location)
            return nil
        }
    }
}
