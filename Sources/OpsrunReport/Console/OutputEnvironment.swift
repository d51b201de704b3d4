/// What the executable learnt from its own environment that changes how opsrun's output looks.
/// The library never reads `NO_COLOR`, `TERM`, `GITHUB_ACTIONS` or `TMPDIR` itself: they come here.
public struct OutputEnvironment: Sendable, Equatable {
    /// `NO_COLOR` is set and not empty (no-color.org): no colour unless `--color always`.
    public var noColor: Bool
    /// `TERM=dumb`: a terminal that cannot take escapes.
    public var dumbTerminal: Bool
    /// `GITHUB_ACTIONS=true`: grouped blocks fold, failures are annotated.
    public var githubActions: Bool
    /// Where output too large to hold in memory spills (`TMPDIR`, as mktemp(1) has it, else /tmp).
    public var temporaryDirectory: String

    public init(
        noColor: Bool = false, dumbTerminal: Bool = false, githubActions: Bool = false,
        temporaryDirectory: String = "/tmp"
    ) {
        self.noColor = noColor
        self.dumbTerminal = dumbTerminal
        self.githubActions = githubActions
        self.temporaryDirectory = temporaryDirectory
    }

    /// Read from environment variables, given as values.
    public init(variables: [String: String]) {
        self.init(
            noColor: !(variables["NO_COLOR"] ?? "").isEmpty, dumbTerminal: variables["TERM"] == "dumb",
            githubActions: variables["GITHUB_ACTIONS"] == "true",
            temporaryDirectory: variables["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
    }
}
