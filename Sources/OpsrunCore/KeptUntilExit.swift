/// Values a finished run no longer needs, kept until the process exits instead of freed one object
/// at a time: freeing a large project's graph, specs and state costs about 10 ms per 10,000 tasks
/// for nothing when the process exits right after (switched off, a 10,000-task no-op took 1.11× as
/// long, and a 100,000-task `opsrun -n` 1.13×).
///
/// Owned by the executable, which makes one, hands it to `Driver.run`, and exits without
/// releasing it. A caller that passes none frees its memory as usual (tests, other programs).
public final class KeptUntilExit {
    private var values: [Any] = []

    public init() {}

    package func keep(_ kept: Any...) { values.append(contentsOf: kept) }

    /// How many values are kept (for tests).
    public var count: Int { values.count }
}
