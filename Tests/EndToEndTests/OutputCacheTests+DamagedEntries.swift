import Foundation
import Testing

extension OutputCacheTests {
    /// An entry whose digest says size 0 for bytes that are not empty (a damaged or crafted entry;
    /// found by the cache-entry fuzz target) is refused, and the task runs: before, the output was
    /// restored as an empty file and the run ended with exit 0.
    @Test func anEntryWhoseDigestSaysSizeZeroForSomeBytesIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        #expect(try run(try clone()).status == 0)
        // use's entry holds out/use.txt ("one\n", 4 bytes) inline: digest size 4 (field 2, 0x10),
        // then the contents (field 5, 0x2a). Set the size to 0, keeping every length.
        var tampered = 0
        for entry in try FileManager.default.contentsOfDirectory(atPath: cache + "/ac") {
            let url = URL(fileURLWithPath: cache + "/ac/" + entry)
            var bytes = try Data(contentsOf: url)
            if let found = bytes.range(of: Data([0x10, 0x04, 0x2a, 0x04] + Array("one\n".utf8))) {
                bytes[found.lowerBound + 1] = 0
                try bytes.write(to: url)
                tampered += 1
            }
        }
        #expect(tampered == 1)
        let second = try clone()
        let result = try run(second)
        #expect(result.status == 0)
        #expect(ran(second) == ["use"])
        #expect(result.stdout.hasSuffix("1 succeeded, 1 restored\n"))
        #expect(try String(contentsOfFile: second.path("out/use.txt"), encoding: .utf8) == "one\n")
    }
}
