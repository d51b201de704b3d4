import Foundation
import Testing

@testable import OpsrunCache
@testable import OpsrunIncremental

/// Fetching ahead from a cache server (docs/manual/cache.md): at most so many requests at once, in the order
/// asked; an entry brings the blobs it names that are not local; after the server's first failure
/// nothing more is sent.
@Suite struct RemotePrefetchTests {
    /// A server whose answers the test gives, one request at a time.
    final class HeldServer: RemoteCacheClient, @unchecked Sendable {
        private let lock = NSLock()
        private var waiting: [(path: String, completion: @Sendable (RemoteReply) -> Void)] = []
        private(set) var asked: [String] = []
        var synchronousGets = 0

        func get(_ path: String, limit: Int64) -> RemoteReply {
            synchronousGets += 1
            return .failed("not expected")
        }

        func get(_ path: String, limit: Int64, completion: @escaping @Sendable (RemoteReply) -> Void) {
            lock.lock()
            asked.append(path)
            waiting.append((path, completion))
            lock.unlock()
        }

        /// Answers the request for `path`, which must be in flight.
        func answer(_ path: String, _ reply: RemoteReply) {
            lock.lock()
            let index = waiting.firstIndex { $0.path == path }
            let request = index.map { waiting.remove(at: $0) }
            lock.unlock()
            #expect(request != nil, "\(path) was not asked for")
            request?.completion(reply)
        }

        func put(_ uploads: [(path: String, bytes: [UInt8])]) -> String? { nil }
        func shutdown() {}
    }

    let keys = (1...4).map { CacheKey(task: "t", definition: .of("task \($0)"), outputs: ["out/\($0)"]) }

    @Test func atMostTheLimitIsInFlightAndTheRestAreSentInOrder() {
        let server = HeldServer()
        let prefetch = RemotePrefetch(client: server, limit: 2) { _ in false }
        for key in keys { prefetch.start(key) }
        #expect(server.asked == ["ac/" + keys[0].hex, "ac/" + keys[1].hex])
        server.answer("ac/" + keys[1].hex, .missing)
        #expect(server.asked.last == "ac/" + keys[2].hex && server.asked.count == 3)
        #expect(prefetch.take(keys[1])?.entry == .missing)
        // Taken: asked for again, it is fetched again.
        #expect(prefetch.take(keys[1]) == nil)
        server.answer("ac/" + keys[0].hex, .missing)
        server.answer("ac/" + keys[2].hex, .missing)
        server.answer("ac/" + keys[3].hex, .missing)
        #expect(prefetch.take(keys[3])?.entry == .missing)
    }

    @Test func anEntryBringsTheBlobsItNamesThatAreNotLocal() {
        let (here, there) = (Array("here".utf8), Array("there".utf8))
        let local = CacheEntry.Blob(of: here)
        let entry = CacheEntry(files: [
            CacheEntry.File(path: "out/1", blob: local, mode: 0o644),
            CacheEntry.File(path: "out/2", blob: .init(of: there), mode: 0o644),
        ])
        let server = HeldServer()
        let prefetch = RemotePrefetch(client: server, limit: 16) { $0 == local }
        prefetch.start(keys[0])
        server.answer("ac/" + keys[0].hex, .found(entry.encoded(inlining: false)))
        let blob = "cas/" + Hex.sha256(there)
        #expect(server.asked == ["ac/" + keys[0].hex, blob])
        server.answer(blob, .found(there))
        let fetched = prefetch.take(keys[0])
        #expect(fetched?.blobs == [Hex.sha256(there): .found(there)])
    }

    @Test func afterTheFirstFailureNothingMoreIsSent() {
        let server = HeldServer()
        let prefetch = RemotePrefetch(client: server, limit: 1) { _ in false }
        for key in keys.prefix(3) { prefetch.start(key) }
        server.answer("ac/" + keys[0].hex, .failed("HTTP 500"))
        #expect(server.asked == ["ac/" + keys[0].hex])
        #expect(prefetch.problem == "HTTP 500")
        #expect(prefetch.take(keys[2])?.entry == .failed("HTTP 500"))
        prefetch.start(keys[3])
        #expect(prefetch.take(keys[3]) == nil && server.asked.count == 1)
    }

    /// Its sizes are the server's word: blobs too large to hold before the restore has checked the
    /// entry are left to the restore.
    @Test func anEntryNamingMoreThanTheLimitHasNoBlobFetchedAhead() {
        let server = HeldServer()
        let prefetch = RemotePrefetch(client: server, limit: 4) { _ in false }
        let blob = CacheEntry.Blob(hash: String(repeating: "ab", count: 32), size: 1 << 40)
        let huge = CacheEntry(files: [CacheEntry.File(path: "out/1", blob: blob, mode: 0o644)])
        prefetch.start(keys[0])
        server.answer("ac/" + keys[0].hex, .found(huge.encoded(inlining: false)))
        #expect(server.asked == ["ac/" + keys[0].hex])
        // Had it been asked for, `take` would wait for it.
        for path in server.asked.dropFirst() { server.answer(path, .missing) }
        #expect(prefetch.take(keys[0])?.blobs.isEmpty == true)
    }

    @Test func aRestoreTakesWhatWasFetchedAheadWithoutAskingAgain() throws {
        let scratch = ScratchDirectory()
        scratch.write("a/out/x.bin", "xyz")
        let server = HeldServer()
        let writer = OutputCache(directory: scratch.absolute("one"), sizeLimit: 1 << 30)
        let key = keys[0]
        #expect(writer.store(key, directory: scratch.absolute("a"), files: [("out/x.bin", Hex.sha256(Array("xyz".utf8)))],
            standardOutput: [], standardError: []))
        let entry = try #require(writer.local.entry(key).flatMap { CacheEntry(decoding: $0) })

        let reader = OutputCache(directory: scratch.absolute("two"), sizeLimit: 1 << 30, remote: { server })
        reader.prefetch(key)
        server.answer("ac/" + key.hex, .found(entry.encoded(inlining: false)))
        server.answer("cas/" + Hex.sha256(Array("xyz".utf8)), .found(Array("xyz".utf8)))
        mkdir(scratch.absolute("b"), 0o755)
        let place = OutputPlace(projectRoot: scratch.path, taskDirectory: scratch.absolute("b"), outputs: ["out/x.bin"])
        #expect(reader.restore(key, into: place).restored != nil)
        #expect(scratch.bytes("b/out/x.bin") == Array("xyz".utf8))
        #expect(server.synchronousGets == 0 && server.asked.count == 2)
        reader.finish()
    }
}
