import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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

    /// Foundation (with CoreFoundation and ICU's data) is not linked: only FoundationEssentials.
    /// Its start-up ran before `main` even unused, and one `text.contains("x")` resolving to
    /// Foundation's was enough to link it (c300's no-op 3.95 -> 3.70 ms; Package.swift).
    @Test func releaseBinaryLinksNeitherFoundationNorICU() throws {
        let binary = try Data(contentsOf: URL(fileURLWithPath: OpsrunBinary.path), options: .alwaysMapped)
        // memchr for the first byte, then memcmp: a generic search of 100 MB in a debug build takes seconds.
        func holds(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            return binary.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return false }
                var offset = 0
                while offset + needle.count <= bytes.count {
                    guard let found = memchr(base + offset, Int32(needle[0]), bytes.count - offset - needle.count + 1)
                    else { return false }
                    offset = base.distance(to: UnsafeRawPointer(found))
                    if memcmp(base + offset, needle, needle.count) == 0 { return true }
                    offset += 1
                }
                return false
            }
        }
        #expect(!holds("__CFInitialize"), "CoreFoundation is linked into the release binary")
        #expect(!holds("icudt"), "ICU's data is linked into the release binary")
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
