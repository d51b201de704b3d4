import OpsrunCore
/// A task's `service: true`, `ready:` and `ready_timeout:` (docs/manual/ci.md).
///
/// A class: every `TaskSpec` holds this optional, and a reference keeps the common task one word
/// larger rather than a dozen.
public final class ServiceSpec: Equatable, Sendable {
    /// Where `service: true` is written.
    public let location: SourceLocation
    /// `ready:`, the probe retried until it succeeds; `nil`: ready once started.
    public let ready: Located<String>?
    /// `ready_timeout:`; 60 s when not given.
    public let readyTimeoutMilliseconds: Int

    public init(location: SourceLocation, ready: Located<String>? = nil, readyTimeoutMilliseconds: Int = 60_000) {
        self.location = location
        self.ready = ready
        self.readyTimeoutMilliseconds = readyTimeoutMilliseconds
    }

    public static func == (a: ServiceSpec, b: ServiceSpec) -> Bool {
        a.location == b.location && a.ready == b.ready && a.readyTimeoutMilliseconds == b.readyTimeoutMilliseconds
    }
}
