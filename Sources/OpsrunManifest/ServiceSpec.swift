import OpsrunCore
/// A task's `service: true`, `ready:` and `ready_timeout:` (SPEC §11).
public struct ServiceSpec: Equatable, Sendable {
    /// Where `service: true` is written.
    public var location: SourceLocation
    /// `ready:`, the probe retried until it succeeds; `nil`: ready once started.
    public var ready: Located<String>?
    /// `ready_timeout:`; 60 s when not given.
    public var readyTimeoutMilliseconds: Int

    public init(location: SourceLocation, ready: Located<String>? = nil, readyTimeoutMilliseconds: Int = 60_000) {
        self.location = location
        self.ready = ready
        self.readyTimeoutMilliseconds = readyTimeoutMilliseconds
    }
}
