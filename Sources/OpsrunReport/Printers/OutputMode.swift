/// How task output is shown while running (docs/manual/output-and-reports.md).
public enum OutputMode: String, CaseIterable, Sendable {
    /// Each whole line as it comes, prefixed with the task's name.
    case prefixed
    /// A task's whole output in one block when it ends.
    case grouped
    /// Passed through as it comes.
    case interleaved
}

/// `--color`.
public enum ColorChoice: String, CaseIterable, Sendable {
    case auto, always, never
}

/// How much a run prints: `-q`, normal, `-v`.
public enum Verbosity: Sendable { case quiet, normal, verbose }
