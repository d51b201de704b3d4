import OpsrunKit
import Testing
@testable import OpsrunCore

@Suite struct UTF8TextTests {
    @Test func aLeadingByteOrderMarkIsDropped() {
        #expect(UTF8Text.text([0xEF, 0xBB, 0xBF, 0x61]) == "a")
        #expect(UTF8Text.text([0x61, 0xEF, 0xBB, 0xBF]) == "a\u{FEFF}")
    }

    @Test func theFirstInvalidByteIsPlacedByLineAndCharacterColumn() {
        // "é" is one column, as libyaml counts; 0xFF can start no UTF-8 sequence.
        func place(_ bytes: [UInt8]) -> String { UTF8Text.firstInvalidByte(in: bytes).map { "\($0.line):\($0.column) \($0.byte)" } ?? "none" }
        #expect(place(Array("ab\nc\u{E9}d".utf8) + [0xFF]) == "2:4 255")
        #expect(place([0xEF, 0xBB, 0xBF, 0xC3]) == "1:1 195")
        #expect(place(Array("fine\n".utf8)) == "none")
    }
}
