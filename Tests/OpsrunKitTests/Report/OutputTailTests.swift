import Testing

@testable import OpsrunKit
@testable import OpsrunReport

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

    @Test func oneBigChunkOfLongMultibyteLinesIsShownFromAWholeLine() {
        // What the runner hands over from a fast writer: 64 KiB at once, cut anywhere.
        var tail = OutputTail()
        let line = Array((String(repeating: "é", count: 300) + "\n").utf8)  // 601 bytes
        var chunk: [UInt8] = []
        while chunk.count < 64 * 1024 { chunk += line }
        tail.append(Array(chunk[7...]))  // begins inside a line, and inside a character
        let text = tail.text
        #expect(text.hasPrefix("[… earlier output left out]\néé"))
        #expect(!text.contains("\u{FFFD}"))
        let lines = text.split(separator: "\n").dropFirst()
        #expect(lines.allSatisfy { $0.count == 300 })
    }

    @Test func aTailWithoutAnyNewlineStillBeginsOnACharacter() {
        var tail = OutputTail()
        tail.append(Array(String(repeating: "€", count: 20_000).utf8))  // 60,000 bytes, no line break
        let text = tail.text
        #expect(text.hasPrefix("[… earlier output left out]\n€€"))
        #expect(!text.contains("\u{FFFD}"))
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
