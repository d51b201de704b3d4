import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif
@testable import OpsrunCache
@testable import OpsrunIncremental
@testable import OpsrunKit

/// What the cache trusts of what it reads (docs/manual/cache.md, "What a cache entry may do"), piece
/// by piece: the seal of a local entry, reusing a blob, writing through no link, the URL and header
/// a run may use.
@Suite struct CacheTrustTests {
    let key = CacheKey(task: "t", definition: .of("task"), outputs: ["out/*.txt"])

    @Test func aLocalEntryIsSealedWithItsKeyAndItsBytes() {
        let entry = CacheEntry(files: [CacheEntry.File(path: "out/a.txt", blob: .init(of: [1]), mode: 0o644, contents: [1])])
            .encoded(inlining: true)
        let sealed = LocalCacheStore.sealed(entry, key: key)
        #expect(LocalCacheStore.unsealed(sealed, key: key) == entry)
        #expect(LocalCacheStore.unsealed(sealed, key: CacheKey(task: "t", definition: .of("other"), outputs: ["out/*.txt"])) == nil)
        #expect(LocalCacheStore.unsealed(Array(sealed.dropLast()), key: key) == nil)
        #expect(LocalCacheStore.unsealed(entry, key: key) == nil)
        var flipped = sealed
        flipped[0] ^= 1
        #expect(LocalCacheStore.unsealed(flipped, key: key) == nil)
        #expect(LocalCacheStore.unsealed([], key: key) == nil)
    }

    @Test func aBlobInTheCacheIsReusedOnlyWhileItIsStillItsContent() throws {
        let scratch = ScratchDirectory()
        let content = String(repeating: "0123456789", count: 10_000)
        scratch.write("out.bin", content)
        let store = LocalCacheStore(root: scratch.absolute("cache"))
        let hash = Hex.sha256(Array(content.utf8))
        let stored = try #require(store.storeBlob(copying: scratch.absolute("out.bin"), expected: hash))
        #expect(stored.size == Int64(content.utf8.count))
        // Emptied, as a power loss may leave it: the next store puts it back whole.
        truncate(store.blobPath(hash), 0)
        #expect(store.storeBlob(copying: scratch.absolute("out.bin"), expected: hash) == stored)
        #expect(scratch.bytes("cache/cas/" + hash) == Array(content.utf8))
        // The same for a blob stored from memory.
        truncate(store.blobPath(hash), 0)
        #expect(store.storeBlob(Array(content.utf8), hash: hash))
        #expect(scratch.bytes("cache/cas/" + hash) == Array(content.utf8))
    }

    @Test func aConfinedDirectoryFollowsNoLink() throws {
        let scratch = ScratchDirectory()
        scratch.write("outside/keep.txt", "keep\n")
        scratch.write("task/out/old.txt", "old\n")
        symlink(scratch.absolute("outside"), scratch.absolute("task/out/gen"))
        let directory = try #require(ConfinedDirectory(scratch.absolute("task")))
        #expect(directory.link(on: "out/gen/x.txt") == "out/gen")
        #expect(directory.link(on: "out/new/x.txt") == nil)
        // The link goes, what it points to stays.
        #expect(directory.empty("out"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.absolute("task/out")) == [])
        #expect(scratch.bytes("outside/keep.txt") == Array("keep\n".utf8))
        #expect(directory.write("out/new/x.txt") { parent, name in BlobFile.write([1, 2], at: parent, to: name, mode: 0o644) })
        #expect(scratch.bytes("task/out/new/x.txt") == [1, 2])
        // A link planted where a directory is expected fails the write; nothing lands beyond it.
        symlink(scratch.absolute("outside"), scratch.absolute("task/planted"))
        #expect(!directory.write("planted/x.txt") { parent, name in BlobFile.write([1], at: parent, to: name, mode: 0o644) })
        #expect(!scratch.exists("outside/x.txt"))
    }

    @Test func aURLOpsrunCannotUseIsSaidBeforeTheRun() {
        for good in ["http://cache:8080", "https://cache.example/prefix/", "http://[::1]:8080/", "http://u:p@h/"] {
            #expect(RemoteCacheURL.problem(good) == nil, "\(good)")
        }
        #expect(RemoteCacheURL.problem("ftp://host/") == "is not an http:// or https:// URL")
        #expect(RemoteCacheURL.problem("cache:8080") == "is not an http:// or https:// URL")
        #expect(RemoteCacheURL.problem("http:///x") == "names no host")
        for port in ["0", "65536", "99999", "http"] {
            #expect(RemoteCacheURL.problem("http://h:\(port)/") == "has no port opsrun can use (a number from 1 to 65535)")
        }
    }

    @Test func aHeaderThatIsNotOneIsAUsageErrorThatShowsNoValue() {
        var invocation = Invocation()
        invocation.remoteCache = "http://cache:8080"
        func error(_ header: String) -> String? {
            CacheSettings.usageError(invocation, environment: ["OPSRUN_REMOTE_CACHE_HEADER": header])
        }
        #expect(error("Authorization: Bearer t0ken") == nil)
        #expect(error("Bearer t0ken")?.hasSuffix("it has no ':'") == true)
        for bad in ["Bad Name: t0ken", ": t0ken", "X: t0ken\r\nY: z"] {
            let message = error(bad)
            #expect(message?.hasSuffix("its name or value is not one HTTP allows") == true, "\(bad)")
            #expect(message?.contains("t0ken") == false)
        }
        invocation.noCache = true
        #expect(error("Bearer t0ken") == nil)
    }
}
