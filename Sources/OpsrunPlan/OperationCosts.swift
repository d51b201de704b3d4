import OpsrunEngine
// The queue starts first what has the most work behind it (docs/manual/running.md), and work is time: issue 15
// weighs each task by its last recorded duration, as ninja weighs edges by its log, so that long
// compiles start first. A group runs nothing and costs (almost) nothing.
//
// A task never recorded is weighed by what it reads (issue 30): the size of its declared sources.
// On a first clean build, in sorted order, Lua's longest compile (`lvm.c`, its largest file) started
// last at `-j 2` and one core idled while it finished; larger files are the longer compiles. The two
// scales mix through the typical task: an unrecorded task reading the median size of the unrecorded
// ones counts as the median recorded duration (as every unrecorded task did before), one reading
// twice that counts twice that. Nothing recorded at all: the sizes themselves, in bytes.
// An unrecorded task that declares no sources (a link) counts as that typical task. With nothing
// recorded and no size known, every operation costs 1: the critical path is the number of operations
// on the longest chain behind, as before anything was recorded.

/// Each operation's expected cost for the critical path, in microseconds (in bytes read when no
/// duration is recorded at all).
public enum OperationCosts {
    /// `recorded[i]`: the microseconds the last successful run of `specs[i]` took, if known.
    /// `sourceBytes(i)`: the total size of the sources operation `i` declares, `nil` when it declares
    /// none; asked only of operations that are not groups and have no recorded duration.
    public static func estimate(
        specs: [OperationSpec], recorded: [UInt64?], sourceBytes: (Int) -> UInt64? = { _ in nil }
    ) -> [UInt64] {
        var known: [UInt64] = []
        var sizes: [UInt64?] = Array(repeating: nil, count: specs.count)
        var knownSizes: [UInt64] = []
        for index in specs.indices where !specs[index].isGroup {
            if let duration = recorded[index] {
                known.append(duration)
            } else if let size = sourceBytes(index), size > 0 {
                sizes[index] = size
                knownSizes.append(size)
            }
        }
        let medianDuration = known.isEmpty ? nil : max(1, median(&known))
        guard !knownSizes.isEmpty else {
            guard let medianDuration else { return Array(repeating: 1, count: specs.count) }
            return zip(specs, recorded).map { spec, duration in
                spec.isGroup ? 1 : max(1, duration ?? medianDuration)
            }
        }
        let medianSize = max(1, median(&knownSizes))
        // Microseconds per byte when durations are known; bytes themselves when none is.
        let scale = medianDuration.map { Double($0) / Double(medianSize) } ?? 1
        let typical = medianDuration ?? medianSize
        return specs.indices.map { index in
            if specs[index].isGroup { return 1 }
            if let duration = recorded[index] { return max(1, duration) }
            guard let size = sizes[index] else { return typical }
            // Below 2^62: the critical path's sums saturate, but a cost this large is no task's.
            return max(1, UInt64(min(Double(size) * scale, 0x1p62)))
        }
    }

    /// The upper median (`values` is sorted in place).
    private static func median(_ values: inout [UInt64]) -> UInt64 {
        values.sort()
        return values[values.count / 2]
    }
}
