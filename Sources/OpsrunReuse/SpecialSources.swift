import OpsrunCore
import OpsrunIncremental
// A source that is neither a regular file nor a directory (a named pipe, a device, a socket) has no
// content to key on: reading a pipe blocks until someone writes, a device such as /dev/zero never
// ends. So it is never read, and, as a missing source is, it is an error when its task is ready:
// the task fails without starting, its dependents are cancelled (docs/manual/up-to-date.md).

/// The error for a source that is not a file.
enum SpecialSources {
    /// The error at the `sources` entry that found `source` (or at the task's `depfile`, which
    /// listed it), and the reason the task could not start.
    static func error(
        for source: SpecialSource, of task: IncrementalTaskSpec, at place: SourceLocation?
    ) -> (error: Diagnostic, reason: String) {
        let reason = "source '\(shown(source.path))' is \(source.kind), not a file"
        let message = source.pattern == nil
            ? "task '\(task.name)': source '\(shown(source.path))', listed by its depfile '\(shown(task.depfile ?? ""))', "
                + "is \(source.kind), not a file"
            : "task '\(task.name)': \(reason)"
        return (Diagnostic(.error, at: place, message), reason)
    }

    private static func shown(_ path: String) -> String { TerminalText.escapingControlCharacters(path) }
}
