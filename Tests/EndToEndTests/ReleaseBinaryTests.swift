import Foundation
import Testing

/// The binary the README's build command makes (`OPSRUN_BINARY`, set by `Tests/all.sh`) is a static
/// executable linked at a fixed address (`release.toolset.json`: `-static-executable`, `-no-pie`):
/// no dynamic loader runs at its start, so nothing is looked up or relocated. Together these took
/// the 303-task c300 no-op from 9.1 to 5.6 ms (docs/process-handling.md).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["OPSRUN_BINARY"] != nil, "only for the release binary"))
struct ReleaseBinaryTests {
    @Test func releaseBinaryIsLinkedAtAFixedAddress() throws {
        let header = try ELFHeader(path: OpsrunBinary.path)
        // e_type 2 is ET_EXEC (fixed address); 3, ET_DYN, would be a PIE.
        #expect(header.type == 2, "the release binary is position-independent")
    }

    @Test func releaseBinaryNeedsNoDynamicLoader() throws {
        let header = try ELFHeader(path: OpsrunBinary.path)
        // PT_INTERP (3) names the dynamic loader; PT_DYNAMIC (2) lists shared libraries to load.
        #expect(!header.programHeaderTypes.contains(3), "the release binary asks for a dynamic loader")
        #expect(!header.programHeaderTypes.contains(2), "the release binary has a dynamic section")
    }
}

/// The few fields of a little-endian ELF64 file these tests read.
private struct ELFHeader {
    var type: UInt16
    var programHeaderTypes: [UInt32]

    init(path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped).prefix(1 << 16))
        try #require(bytes.count >= 64 && Array(bytes.prefix(5)) == [0x7f, 0x45, 0x4c, 0x46, 2], "not an ELF64 file")
        func integer(at offset: Int, size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        type = UInt16(integer(at: 16, size: 2))
        let offset = integer(at: 32, size: 8), entrySize = integer(at: 54, size: 2), count = integer(at: 56, size: 2)
        try #require(offset + entrySize * count <= bytes.count, "program headers beyond the first 64 KiB")
        programHeaderTypes = (0..<count).map { UInt32(integer(at: offset + $0 * entrySize, size: 4)) }
    }
}
