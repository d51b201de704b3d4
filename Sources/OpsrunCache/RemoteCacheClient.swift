/// A server of Bazel's HTTP cache protocol, as the output cache needs it: `GET` and `PUT` of
/// `ac/<sha256>` and `cas/<sha256>`. The HTTP itself is `HTTPRemoteCache`'s; tests may put a fake.
package protocol RemoteCacheClient: AnyObject {
    /// The body under `path` (`ac/<hex>`, `cas/<hex>`); a body larger than `limit` bytes fails
    /// without being held (docs/manual/cache.md: a server's answer is bounded).
    func get(_ path: String, limit: Int64) -> RemoteReply
    /// Starts a `GET` of `path` and returns at once; `completion` is called exactly once, on any
    /// thread (the client's own, for `HTTPRemoteCache`), within the request's time limit. The
    /// default answers before returning, with `get`.
    func get(_ path: String, limit: Int64, completion: @escaping @Sendable (RemoteReply) -> Void)
    /// Stores `bytes` under each path; returns why it failed, if it did.
    func put(_ uploads: [(path: String, bytes: [UInt8])]) -> String?
    /// Ends the client (its connections and threads); called once, at the end of the run. A `GET`
    /// still in flight is cancelled: its completion has been called when this returns.
    func shutdown()
}

extension RemoteCacheClient {
    package func get(_ path: String, limit: Int64, completion: @escaping @Sendable (RemoteReply) -> Void) {
        completion(get(path, limit: limit))
    }
}

/// What a `GET` found.
package enum RemoteReply: Equatable, Sendable {
    case found([UInt8])
    /// 404: not in the cache.
    case missing
    /// Unreachable, too slow, or an answer that is not one: why, for the one warning.
    case failed(String)
}
