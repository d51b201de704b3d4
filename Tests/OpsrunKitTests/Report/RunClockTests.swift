import Testing

@testable import OpsrunKit

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

    @Test func aDurationIsTheDifferenceOfTheTwoTimesAsWritten() {
        // 10:00:00.0004 to 10:00:00.0016 reads .000 to .001: 1 ms, though 1.2 ms passed.
        let clock = RunClock(startMonotonic: 0, startUnixNanoseconds: 1_795_428_000 * 1_000_000_000 + 400_000)
        #expect(clock.timestamp(of: 1_200_000) == "2026-11-23T10:00:00.001Z")
        #expect(clock.milliseconds(from: 0, to: 1_200_000) == 1)
        #expect(clock.milliseconds(from: 1_200_000, to: 0) == 0)
    }
}
