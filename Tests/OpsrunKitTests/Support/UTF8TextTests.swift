import OpsrunKit
import Testing
@testable import OpsrunCore

@Suite struct UTF8TextTests {
    @Test func aLeadingByteOrderMarkIsDropped() {
        #expect(UTF8Text.text([0xEF, 0xBB, 0xBF, 0x61]) == "a")
        #expect(UTF8Text.text([0x61, 0xEF, 0xBB, 0xBF]) == "a\u{FEFF}")
        #expect(UTF8Text.text([0xEF, 0xBB]) == nil)
        #expect(UTF8Text.text([0xEF, 0xBB, 0xBF]) == "")
    }

    @Test func joinedPutsTheSeparatorBetweenPartsOnly() {
        let samples: [[String]] = [[], [""], ["a"], ["a", "b"], ["", ""], ["x", "", "yz", "café"]]
        for parts in samples {
            for separator in ["", "/", ", "] {
                #expect(UTF8Text.joined(parts, separator: separator) == parts.joined(separator: separator))
            }
        }
    }

    @Test func theFirstInvalidByteIsPlacedByLineAndCharacterColumn() {
        // "é" is one column, as libyaml counts; 0xFF can start no UTF-8 sequence.
        func place(_ bytes: [UInt8]) -> String { UTF8Text.firstInvalidByte(in: bytes).map { "\($0.line):\($0.column) \($0.byte)" } ?? "none" }
        #expect(place(Array("ab\nc\u{E9}d".utf8) + [0xFF]) == "2:4 255")
        #expect(place([0xEF, 0xBB, 0xBF, 0xC3]) == "1:1 195")
        #expect(place(Array("fine\n".utf8)) == "none")
    }
}

/// `UTF8Text.precedes` is the byte order of the UTF-8 (what `ls` shows under `LC_ALL=C`), for
/// inline (short) and heap strings, prefixes and text that is not ASCII.
@Suite struct BytewiseOrderTests {
    @Test func namesSortByTheirUTF8BytesWhateverTheirLength() {
        let names = ["", "a", "b", "a/", "a.c", "ab", "src/z.c", "src/zz.c", "café", "cafe\u{301}", "Z",
                     "src/lib/a-very-long-name-that-is-not-inline.c", "src/lib/a-very-long-name-that-is-not-inline.h",
                     "日本", "\u{1F600}x"]
        for a in names {
            for b in names {
                #expect(UTF8Text.precedes(a, b) == a.utf8.lexicographicallyPrecedes(b.utf8), "\(a) < \(b)")
            }
        }
    }

    @Test func randomPathsSortAsTheirBytesDo() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("BytewiseOrderTests seed: \(seed)")
        var random = SplitMix64(seed: seed)
        let alphabet = Array("ab/._-zé日".unicodeScalars)
        let paths = (0..<300).map { _ in
            String(String.UnicodeScalarView((0..<Int.random(in: 0...40, using: &random)).map { _ in
                alphabet.randomElement(using: &random)!
            }))
        }
        let sorted = paths.sorted(by: UTF8Text.precedes)
        #expect(sorted.map { Array($0.utf8) } == paths.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) },
                "seed \(seed)")
    }
}

@Suite struct ByteSearchTests {
    @Test func aByteIsFoundInShortLongAndEmptyText() {
        #expect(UTF8Text.contains(UInt8(ascii: "$"), in: "build/${SRC%.c}.o"))
        #expect(!UTF8Text.contains(UInt8(ascii: "$"), in: "src/a.c"))
        #expect(!UTF8Text.contains(UInt8(ascii: "$"), in: ""))
        let long = String(repeating: "café/", count: 40)
        #expect(!UTF8Text.contains(UInt8(ascii: "$"), in: long))
        #expect(UTF8Text.contains(UInt8(ascii: "$"), in: long + "$"))
    }
}
