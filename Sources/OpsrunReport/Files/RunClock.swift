#if canImport(Glibc)
import Glibc
#endif
import OpsrunCore

/// The run's monotonic times (`JobResult`'s clock) read as wall-clock times, for the report files.
///
/// One reading of both clocks when the run starts; every monotonic mark is placed relative to it,
/// so a clock step during the run (NTP, a suspend) cannot reorder or stretch the tasks.
public struct RunClock: Sendable, Equatable {
    /// CLOCK_MONOTONIC at the start, in nanoseconds.
    public let startMonotonic: UInt64
    /// CLOCK_REALTIME at the same moment, in nanoseconds since the Unix epoch.
    public let startUnixNanoseconds: Int64

    public init(startMonotonic: UInt64, startUnixNanoseconds: Int64) {
        self.startMonotonic = startMonotonic
        self.startUnixNanoseconds = startUnixNanoseconds
    }

    /// Both clocks now.
    public static func now() -> RunClock {
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        return RunClock(
            startMonotonic: MonotonicClock.now(),
            // Wrapping: a clock set past 2262 gives wrong times in a report, not a crash.
            startUnixNanoseconds: Int64(wall.tv_sec) &* 1_000_000_000 &+ Int64(wall.tv_nsec))
    }

    /// Nanoseconds from the start to `monotonic` (0 for a mark before it).
    public func offset(of monotonic: UInt64) -> UInt64 {
        monotonic >= startMonotonic ? monotonic - startMonotonic : 0
    }

    /// Milliseconds since the Unix epoch at `monotonic`, cut (not rounded) as `timestamp` writes them.
    func unixMilliseconds(of monotonic: UInt64) -> Int64 {
        let unix = startUnixNanoseconds &+ Int64(truncatingIfNeeded: offset(of: monotonic))
        // Floor, not toward zero: before 1970 a time still cuts down to its millisecond.
        return unix >= 0 ? unix / 1_000_000 : (unix - 999_999) / 1_000_000
    }

    /// The whole milliseconds between two marks as their timestamps read, so that a duration is
    /// always the difference of the two times printed beside it.
    func milliseconds(from start: UInt64, to end: UInt64) -> Int {
        Int(max(0, unixMilliseconds(of: end) - unixMilliseconds(of: start)))
    }

    /// `2026-11-23T17:45:12.345Z`: UTC, to the millisecond; without `precise`,
    /// `2026-11-23T17:45:12` (still UTC), the form JUnit's schema allows.
    public func timestamp(of monotonic: UInt64, precise: Bool = true) -> String {
        let unix = unixMilliseconds(of: monotonic)
        let milliseconds = (unix % 1000 + 1000) % 1000
        var seconds = time_t((unix - milliseconds) / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let text = "\(parts.tm_year + 1900)-\(Self.padded(parts.tm_mon + 1, 2))-\(Self.padded(parts.tm_mday, 2))"
            + "T\(Self.padded(parts.tm_hour, 2)):\(Self.padded(parts.tm_min, 2)):\(Self.padded(parts.tm_sec, 2))"
        return precise ? text + ".\(Self.padded(Int32(milliseconds), 3))Z" : text
    }

    private static func padded(_ value: Int32, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
