import Testing

@testable import OpsrunKit

/// The tail of a task's output that a failed `--junit` test case shows.
@Suite struct OutputTailTests {
    @Test func shortOutputIsKeptWhole() {
        var tail = OutputTail()
        tail.append(Array("one\ntwo\n".utf8))
        tail.append(Array("three".utf8))
        #expect(tail.text == "one\ntwo\nthree")
    }

    @Test func onlyTheLastHundredLinesAreShownWithANoteThatMoreCameBefore() {
        var tail = OutputTail()
        for line in 1...250 { tail.append(Array("line \(line)\n".utf8)) }
        let lines = tail.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "[… earlier output left out]")
        #expect(lines[1] == "line 151")
        #expect(lines.dropLast().last == "line 250")
        #expect(lines.count == 102)  // the note, 100 lines, and the empty piece after the last newline
    }

    @Test func aFloodOfOutputKeepsMemoryBoundedAndShowsItsEndFromAWholeLine() {
        var tail = OutputTail()
        let chunk = Array(String(repeating: "x", count: 999).utf8) + [UInt8(ascii: "\n")]
        for _ in 0..<10_000 { tail.append(chunk) }  // 10 MB
        tail.append(Array("the end\n".utf8))
        let text = tail.text
        #expect(text.utf8.count <= OutputTail.byteLimit + 40)
        #expect(text.hasPrefix("[… earlier output left out]\nxxx"))
        #expect(text.hasSuffix("x\nthe end\n"))
        let lines = text.split(separator: "\n").dropFirst()
        #expect(lines.dropLast().allSatisfy { $0.count == 999 })
    }
}

@Suite struct RunClockTests {
    @Test func monotonicMarksReadAsUTCTimesToTheMillisecond() {
        let clock = RunClock(startMonotonic: 5_000_000_000, startUnixNanoseconds: 1_795_428_000 * 1_000_000_000)
        #expect(clock.timestamp(of: 5_000_000_000) == "2026-11-23T10:00:00.000Z")
        #expect(clock.timestamp(of: 5_000_000_000 + 3_723_045_999_999) == "2026-11-23T11:02:03.045Z")
        // A mark before the start (none should exist) reads as the start, not as an earlier time.
        #expect(clock.timestamp(of: 1) == "2026-11-23T10:00:00.000Z")
    }
}
