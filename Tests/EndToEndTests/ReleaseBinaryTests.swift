import Foundation
import Testing

/// The binary the README's build command makes (`OPSRUN_BINARY`, set by `Tests/all.sh`) is linked
/// at a fixed address and exports no symbols (`release.toolset.json`: `-no-pie`, `--no-export-dynamic`):
/// the dynamic loader then has nothing of opsrun's to relocate at each start, and the runtime's
/// lookups do not scan 37,000 exported names. Together they took a small project's no-op from
/// 5.9 to 4.9 ms and 1,200 page faults to 850 (docs/process-handling.md).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["OPSRUN_BINARY"] != nil, "only for the release binary"))
struct ReleaseBinaryTests {
    @Test func releaseBinaryIsLinkedAtAFixedAddress() throws {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: OpsrunBinary.path))
        defer { try? handle.close() }
        let header = try #require(try handle.read(upToCount: 18))
        #expect(Array(header.prefix(4)) == [0x7f, 0x45, 0x4c, 0x46], "not an ELF file")
        // e_type, little-endian: 2 is ET_EXEC (fixed address); 3, ET_DYN, would be a PIE.
        #expect(UInt16(header[16]) | UInt16(header[17]) << 8 == 2, "the release binary is position-independent")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/readelf")))
    func releaseBinaryExportsAlmostNoSymbols() throws {
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        readelf.arguments = ["--dyn-syms", "-W", OpsrunBinary.path]
        let pipe = Pipe()
        readelf.standardOutput = pipe
        try readelf.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        readelf.waitUntilExit()
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").count
        // What glibc, libyaml and the runtime need stays (about 560 lines); an exporting link has 37,000.
        #expect(lines < 2_000, "the release binary exports \(lines) dynamic symbols")
    }
}
