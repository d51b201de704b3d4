import Testing

@testable import OpsrunCache

/// What `CacheEntry(decoding:)` refuses: everything read from a cache is hostile until checked
/// (docs/manual/cache.md). Found by the cache-entry fuzz target (docs/fuzzing.md).
@Suite struct CacheEntryDecodingTests {
    static let noBytes = CacheEntry.Blob(of: [])

    /// A blob of size 0 has one digest, that of no bytes: any other names content the entry does
    /// not hold, and restoring it as an empty file would be a wrong output.
    @Test func aBlobOfSizeZeroIsAcceptedOnlyWithTheDigestOfNoBytes() {
        let other = CacheEntry.Blob(hash: String(repeating: "ab", count: 32), size: 0)
        for inlining in [true, false] {
            let file = CacheEntry(files: [.init(path: "out/a.txt", blob: other, mode: 0o644)])
            #expect(CacheEntry(decoding: file.encoded(inlining: inlining)) == nil)
            let log = CacheEntry(files: [], standardOutput: .init(blob: other))
            #expect(CacheEntry(decoding: log.encoded(inlining: inlining)) == nil)
        }
        let empty = CacheEntry(
            files: [.init(path: "out/a.txt", blob: Self.noBytes, mode: 0o644, contents: [])],
            standardOutput: .init(blob: Self.noBytes, contents: []))
        #expect(CacheEntry(decoding: empty.encoded(inlining: false)) == empty)
    }

    /// Bytes held for a blob of size 0 are not its bytes either.
    @Test func bytesHeldForABlobOfSizeZeroRefuseTheEntry() {
        let entry = CacheEntry(files: [.init(path: "out/a.txt", blob: Self.noBytes, mode: 0o644, contents: Array("one\n".utf8))])
        #expect(CacheEntry(decoding: entry.encoded(inlining: true)) == nil)
    }

    /// Found by the fuzz target: the decoder keeps any path (`ds/./x`), and the restore refuses
    /// one that is not plain and relative, even when the task declares that very path.
    @Test func aPathThatIsNotPlainDecodesAndIsRefusedByTheRestore() throws {
        for path in ["ds/./x", "ds/../x", "ds//x", "/etc/x", "./x"] {
            let bytes = Array("x".utf8)
            let entry = CacheEntry(files: [.init(path: path, blob: .init(of: bytes), mode: 0o644, contents: bytes)])
            let decoded = try #require(CacheEntry(decoding: entry.encoded(inlining: true)))
            let place = OutputPlace(projectRoot: "/project", taskDirectory: "/project/task", outputs: [path, "**"])
            #expect(place.refusal(of: decoded.files[0].path) != nil, "\(path)")
        }
    }
}
