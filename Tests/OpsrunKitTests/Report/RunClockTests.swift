import Testing

@testable import OpsrunKit
@testable import OpsrunReport

/// Monotonic marks read as the wall-clock times the report files print.
@Suite struct RunClockTests {
    @Test func monotonicMarksReadAsUTCTimesToTheMillisecond() {
        let clock = RunClock(startMonotonic: 5_000_000_000, startUnixNanoseconds: 1_795_428_000 * 1_000_000_000)
        #expect(clock.timestamp(of: 5_000_000_000) == "2026-11-23T10:00:00.000Z")
        #expect(clock.timestamp(of: 5_000_000_000 + 3_723_045_999_999) == "2026-11-23T11:02:03.045Z")
        // A mark before the start (none should exist) reads as the start, not as an earlier time.
        #expect(clock.timestamp(of: 1) == "2026-11-23T10:00:00.000Z")
        #expect(clock.timestamp(of: 5_000_000_000 + 1_999_000_000, precise: false) == "2026-11-23T10:00:01")
    }

    @Test func aClockBefore1970StillReadsAsATime() {
        // 1969-12-31T23:59:59.750Z: a quarter second before the epoch.
        let clock = RunClock(startMonotonic: 0, startUnixNanoseconds: -250_000_000)
        #expect(clock.timestamp(of: 0) == "1969-12-31T23:59:59.750Z")
        #expect(clock.timestamp(of: 300_000_000) == "1970-01-01T00:00:00.050Z")
    }

    @Test func aDurationIsTheDifferenceOfTheTwoTimesAsWritten() {
        // 10:00:00.0004 to 10:00:00.0016 reads .000 to .001: 1 ms, though 1.2 ms passed.
        let clock = RunClock(startMonotonic: 0, startUnixNanoseconds: 1_795_428_000 * 1_000_000_000 + 400_000)
        #expect(clock.timestamp(of: 1_200_000) == "2026-11-23T10:00:00.001Z")
        #expect(clock.milliseconds(from: 0, to: 1_200_000) == 1)
        #expect(clock.milliseconds(from: 1_200_000, to: 0) == 0)
    }
}
