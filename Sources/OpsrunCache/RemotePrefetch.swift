import OpsrunCore

/// Entries fetched from the server ahead of `OutputCache.restore`, several at once (docs/manual/cache.md).
///
/// A restore that misses locally costs two round trips (the entry, then the blobs it names), and
/// the engine decides ready tasks one at a time: restoring 2,000 tasks waited for 4,000 round trips
/// in a row. When tasks become ready, the run starts their fetches here: the `ac/` entry, then, from
/// its completion on the client's thread, the blobs it names that are not local. The restore then
/// takes what came, or waits only for what is still in flight.
///
/// At most `limit` requests are in flight (the client's connections); the others wait in the order
/// they were asked for, and a request's time limit starts only when it is sent. After the server's
/// first failure nothing more is sent: the waiting requests fail at once, so every fetch ends within
/// one time limit. `stop()` does the same at the end of the run, and the client's `shutdown`
/// cancels what is still in flight.
///
/// `@unchecked Sendable`: completions come on the client's thread; what they share with the run's
/// thread is behind `monitor`, which also wakes a `take` waiting for its fetch.
package final class RemotePrefetch: @unchecked Sendable {
    /// What the server answered for one entry.
    package struct Fetched: Sendable {
        package var entry: RemoteReply
        /// For each blob the entry names that was not local when the entry came, by SHA-256.
        package var blobs: [String: RemoteReply] = [:]
    }

    private struct Request {
        let path: String
        let maxSize: Int64
        let completion: @Sendable (RemoteReply) -> Void
    }

    private let client: RemoteCacheClient
    private let limit: Int
    /// Whether the local store holds a blob (asked on the client's thread).
    private let isLocal: @Sendable (CacheEntry.Blob) -> Bool
    /// Broadcasts whenever a fetch is done.
    private let monitor = Monitor()

    // Behind `monitor`:
    /// Keys started and not yet taken.
    private var started: Set<String> = []
    /// Entries whose blobs are still coming, with how many are.
    private var partial: [String: (fetched: Fetched, blobsLeft: Int)] = [:]
    private var done: [String: Fetched] = [:]
    private var inFlight = 0
    /// Requests waiting for one in flight to end, first in first out from `nextWaiting`.
    private var waiting: [Request] = []
    private var nextWaiting = 0
    private var stopped = false
    private var firstProblem: String?

    /// `limit`: requests in flight at once; `isLocal`: whether a blob need not be fetched.
    package init(client: RemoteCacheClient, limit: Int, isLocal: @escaping @Sendable (CacheEntry.Blob) -> Bool) {
        self.client = client
        self.limit = max(1, limit)
        self.isLocal = isLocal
    }

    private func locked<Result>(_ body: () -> Result) -> Result { monitor.withLock(body) }

    /// The server's first failure, if it failed: from then on nothing more is sent.
    package var problem: String? { locked { firstProblem } }

    /// Starts fetching `key`'s entry and then its blobs; nothing if it was started (and not yet
    /// taken) or the prefetch is stopped.
    /// `blobLimit`: the most its blobs may add up to for them to be fetched ahead (a depfile
    /// task's candidate list may be no larger than `DepfileCandidates.sizeLimit`).
    package func start(_ key: CacheKey, blobLimit: Int64 = RemotePrefetch.blobsLimit) {
        let hex = key.hex
        guard locked({ !stopped && started.insert(hex).inserted }) else { return }
        let limit = min(blobLimit, Self.blobsLimit)
        send("ac/" + hex, maxSize: CacheEntry.sizeLimit) { reply in self.entryCame(hex, reply, blobLimit: limit) }
    }

    /// What the server answered for `key`, waiting for the fetch to end; `nil` when it was not started.
    package func take(_ key: CacheKey) -> Fetched? {
        let hex = key.hex
        return locked {
            guard started.remove(hex) != nil else { return nil }
            while done[hex] == nil { monitor.wait() }
            return done.removeValue(forKey: hex)
        }
    }

    /// Sends nothing more: waiting requests fail at once. Call before the client is shut down.
    package func stop() {
        let dropped = locked { () -> ArraySlice<Request> in
            stopped = true
            return takeWaiting()
        }
        for request in dropped { request.completion(.failed(firstProblemOrStopped)) }
    }

    private var firstProblemOrStopped: String { problem ?? "stopped" }

    /// Blobs fetched ahead for one entry are held in memory before its restore has checked where
    /// it writes: an entry naming more than this (its sizes are the server's word) has its blobs
    /// fetched by the restore, after its checks.
    package static let blobsLimit: Int64 = 256 << 20

    /// The entry came: done, unless it names blobs that are not local, which are fetched next.
    private func entryCame(_ hex: String, _ reply: RemoteReply, blobLimit: Int64) {
        guard case .found(let bytes) = reply, let entry = CacheEntry(decoding: bytes) else {
            return finish(hex, Fetched(entry: reply))
        }
        var hashes: Set<String> = []
        let needed = entry.blobs.filter { hashes.insert($0.hash).inserted && !isLocal($0) }
        // Saturated just above the limit: the sizes are anything up to Int64.max.
        let over = blobLimit + 1
        let size = needed.reduce(Int64(0)) { min($0 + min($1.size, over), over) }
        guard !needed.isEmpty, size <= blobLimit else { return finish(hex, Fetched(entry: reply)) }
        locked { partial[hex] = (Fetched(entry: reply), needed.count) }
        for blob in needed {
            send("cas/" + blob.hash, maxSize: blob.size) { reply in
                let fetched = self.locked { () -> Fetched? in
                    guard var progress = self.partial[hex] else { return nil }
                    progress.fetched.blobs[blob.hash] = reply
                    progress.blobsLeft -= 1
                    self.partial[hex] = progress.blobsLeft == 0 ? nil : progress
                    return progress.blobsLeft == 0 ? progress.fetched : nil
                }
                if let fetched { self.finish(hex, fetched) }
            }
        }
    }

    private func finish(_ hex: String, _ fetched: Fetched) {
        locked {
            done[hex] = fetched
            monitor.broadcast()
        }
    }

    /// Sends the `GET` now if fewer than `limit` are in flight, else when one ends; after a failure
    /// (or `stop`) answers at once that the server failed.
    private func send(_ path: String, maxSize: Int64, then completion: @escaping @Sendable (RemoteReply) -> Void) {
        enum Outcome { case send, queued, refused }
        let outcome = locked { () -> Outcome in
            if stopped { return .refused }
            if inFlight < limit {
                inFlight += 1
                return .send
            }
            waiting.append(Request(path: path, maxSize: maxSize, completion: completion))
            return .queued
        }
        switch outcome {
        case .send: get(Request(path: path, maxSize: maxSize, completion: completion))
        case .queued: break
        case .refused: completion(.failed(firstProblemOrStopped))
        }
    }

    private func get(_ request: Request) {
        client.get(request.path, limit: request.maxSize) { reply in
            self.requestEnded(reply)
            request.completion(reply)
        }
    }

    /// A request ended: the next waiting one takes its place, or, after the first failure, every
    /// waiting one fails.
    private func requestEnded(_ reply: RemoteReply) {
        var next: Request?
        var dropped: ArraySlice<Request> = []
        locked {
            if case .failed(let problem) = reply, firstProblem == nil {
                firstProblem = problem
                stopped = true
            }
            if stopped {
                dropped = takeWaiting()
            } else if nextWaiting < waiting.count {
                next = waiting[nextWaiting]
                nextWaiting += 1
                if nextWaiting == waiting.count { _ = takeWaiting() }
                // It takes this one's place: as many in flight as before.
                return
            }
            inFlight -= 1
        }
        for request in dropped { request.completion(.failed(firstProblemOrStopped)) }
        if let next { get(next) }
    }

    /// Empties the waiting list (under `monitor`), returning those not sent.
    private func takeWaiting() -> ArraySlice<Request> {
        let rest = waiting[nextWaiting...]
        waiting = []
        nextWaiting = 0
        return rest
    }
}
