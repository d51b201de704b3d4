/// Compact durations for run output and the summary.
///
/// Elapsed time: tenths below 10 s (`0.3s`, `9.9s`), whole seconds below a minute (`12s`), then
/// minutes and seconds (`2m05s`), then hours and minutes (`1h02m`). Each step rounds to its unit,
/// so 9.96 s reads `10s` and 59.6 s reads `1m00s`.
enum DurationText {
    static func elapsed(nanoseconds: UInt64) -> String {
        let tenths = (nanoseconds + 50_000_000) / 100_000_000
        if tenths < 100 { return "\(tenths / 10).\(tenths % 10)s" }
        let seconds = (nanoseconds + 500_000_000) / 1_000_000_000
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m\(twoDigits(seconds % 60))s" }
        let minutes = (seconds + 30) / 60
        return "\(minutes / 60)h\(twoDigits(minutes % 60))m"
    }

    /// The time between two monotonic marks; `0.0s` if they are out of order.
    static func elapsed(from start: UInt64, to end: UInt64) -> String {
        elapsed(nanoseconds: end >= start ? end - start : 0)
    }

    /// A configured limit, written as a manifest would write it: `250ms`, `1.5s`, `90s` as `1m30s`,
    /// `10m`, `1h30m`.
    static func limit(milliseconds: Int) -> String {
        if milliseconds < 1000 { return "\(max(milliseconds, 0))ms" }
        if milliseconds % 1000 != 0 {
            return elapsed(nanoseconds: UInt64(milliseconds) * 1_000_000)
        }
        let seconds = milliseconds / 1000
        var text = ""
        if seconds >= 3600 { text += "\(seconds / 3600)h" }
        if seconds % 3600 >= 60 { text += "\(seconds % 3600 / 60)m" }
        if seconds % 60 != 0 { text += "\(seconds % 60)s" }
        return text
    }

    private static func twoDigits(_ value: UInt64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
