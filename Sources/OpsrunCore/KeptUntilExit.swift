/// Values a finished run no longer needs, kept until the process exits instead of freed one object
/// at a time: the executable exits right after, and freeing a large project's graph, specs and
/// state costs about 10 ms per 10,000 tasks for nothing. Off unless the executable turns it on, so
/// tests and other callers free their memory as usual.
public enum KeptUntilExit {
    // Touched only by the executable's main thread: `enable()` before the run, `keep` after it.
    nonisolated(unsafe) private static var isEnabled = false
    nonisolated(unsafe) private static var values: [Any] = []

    /// Called once by the executable, before anything runs.
    public static func enable() { isEnabled = true }

    package static func keep(_ kept: Any...) {
        guard isEnabled else { return }
        values.append(contentsOf: kept)
    }
}
