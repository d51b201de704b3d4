import OpsrunEngine
// The queue starts first what has the most work behind it (docs/manual/running.md), and work is time: issue 15
// weighs each task by its last recorded duration, as ninja weighs edges by its log, so that long
// compiles start first. A task never recorded counts as the median of those that were: a typical
// task, neither first nor last for being new. A group runs nothing and costs (almost) nothing.
// With no duration recorded at all, every operation costs 1 and the critical path is the number
// of operations on the longest chain behind, as before anything was recorded.

/// Each operation's expected cost for the critical path, in microseconds.
public enum OperationCosts {
    /// `recorded[i]`: the microseconds the last successful run of `specs[i]` took, if known.
    public static func estimate(specs: [OperationSpec], recorded: [UInt64?]) -> [UInt64] {
        let known = zip(specs, recorded).compactMap { spec, duration in spec.isGroup ? nil : duration }
        guard !known.isEmpty else { return Array(repeating: 1, count: specs.count) }
        let median = max(1, known.sorted()[known.count / 2])
        return zip(specs, recorded).map { spec, duration in
            spec.isGroup ? 1 : max(1, duration ?? median)
        }
    }
}
