/// A server of Bazel's HTTP cache protocol, as the output cache needs it: `GET` and `PUT` of
/// `ac/<sha256>` and `cas/<sha256>`. The HTTP itself is `HTTPRemoteCache`'s; tests may put a fake.
package protocol RemoteCacheClient: AnyObject {
    /// The body under `path` (`ac/<hex>`, `cas/<hex>`).
    func get(_ path: String) -> RemoteReply
    /// Stores `bytes` under each path; returns why it failed, if it did.
    func put(_ uploads: [(path: String, bytes: [UInt8])]) -> String?
    /// Ends the client (its connections and threads); called once, at the end of the run.
    func shutdown()
}

/// What a `GET` found.
package enum RemoteReply: Equatable, Sendable {
    case found([UInt8])
    /// 404: not in the cache.
    case missing
    /// Unreachable, too slow, or an answer that is not one: why, for the one warning.
    case failed(String)
}
