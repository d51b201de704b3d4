import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix

/// Bazel's HTTP cache protocol over AsyncHTTPClient (docs/manual/cache.md): `GET`/`PUT <base>/ac/<sha256>` and
/// `<base>/cas/<sha256>`, which bazel-remote, nginx with WebDAV `PUT` and cloud buckets behind
/// one all serve. Made only when `--remote-cache` is given, so a run without it starts no
/// thread and opens no socket. Its one event-loop thread is owned here and joined by `shutdown`.
///
/// Every request is bounded (connect and whole-request timeouts): a server that hangs costs one
/// wait, after which the cache stops asking it for the rest of the run.
package final class HTTPRemoteCache: RemoteCacheClient {
    private let base: String
    /// The server's host, for "cannot find the host".
    private let host: String
    private let headers: HTTPHeaders
    private let group: MultiThreadedEventLoopGroup
    private let client: HTTPClient
    private let requestTimeout: TimeAmount
    private var isShutDown = false
    /// Connections to the server, and so requests in flight at once: uploads at the end of a run,
    /// fetches ahead of restores (`RemotePrefetch`) during it.
    package static let connections = 16

    /// `url`: the server's base (`http://cache:8080`, `https://host/prefix/`); `header`: one extra
    /// header sent with every request (a token), never printed.
    package init(
        url: String, header: (name: String, value: String)? = nil, connectTimeout: Int64 = 2_000,
        requestTimeout: Int64 = 10_000
    ) {
        var trimmed = Substring(url)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        base = String(trimmed)
        host = RemoteCacheURL(url).map { $0.host } ?? ""
        var headers = HTTPHeaders()
        if let header { headers.add(name: header.name, value: header.value) }
        self.headers = headers
        self.requestTimeout = .milliseconds(requestTimeout)
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = HTTPClient.Configuration(
            timeout: .init(connect: .milliseconds(connectTimeout), read: .milliseconds(requestTimeout)))
        configuration.connectionPool = .init(
            idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: Self.connections)
        configuration.redirectConfiguration = .disallow
        // By default a failed connect is tried again, with backoff, until the connect timeout: a
        // refused connection (no server on that port) then cost every run the whole 2 s. A cache
        // that cannot be reached is one warning and the run goes on without it
        // (docs/manual/cache.md), so one attempt is enough.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
    }

    deinit { shutdown() }

    package func get(_ path: String, limit: Int64) -> RemoteReply {
        do {
            let request = try HTTPClient.Request(url: base + "/" + path, method: .GET, headers: headers)
            let body = BoundedBody(limit: limit)
            return Self.reply(to: try client.execute(request: request, delegate: body, deadline: .now() + requestTimeout).wait(), path)
        } catch {
            return .failed(Self.describe(error, path, host: host))
        }
    }

    /// Answers on the client's event-loop thread, when the response or the deadline comes.
    package func get(_ path: String, limit: Int64, completion: @escaping @Sendable (RemoteReply) -> Void) {
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: base + "/" + path, method: .GET, headers: headers)
        } catch {
            return completion(.failed(Self.describe(error, path, host: host)))
        }
        let (body, host) = (BoundedBody(limit: limit), host)
        client.execute(request: request, delegate: body, deadline: .now() + requestTimeout).futureResult.whenComplete {
            result in
            switch result {
            case .success(let response): completion(Self.reply(to: response, path))
            case .failure(let error): completion(.failed(Self.describe(error, path, host: host)))
            }
        }
    }

    private static func reply(to response: BoundedBody.Response, _ path: String) -> RemoteReply {
        switch response.status {
        case 200: return .found(response.body)
        case 404: return .missing
        default: return .failed("GET \(Self.shown(path)): HTTP \(response.status)")
        }
    }

    package func put(_ uploads: [(path: String, bytes: [UInt8])]) -> String? {
        var next = 0
        while next < uploads.count {
            let batch = uploads[next..<min(next + Self.connections, uploads.count)]
            next = batch.endIndex
            var futures: [EventLoopFuture<HTTPClient.Response>] = []
            for upload in batch {
                do {
                    let request = try HTTPClient.Request(
                        url: base + "/" + upload.path, method: .PUT, headers: headers, body: .bytes(upload.bytes))
                    futures.append(client.execute(request: request, deadline: .now() + requestTimeout))
                } catch {
                    return Self.describe(error, upload.path, host: host)
                }
            }
            var problem: String?
            // Every future is waited for, so none is left running after a failure.
            for (future, upload) in zip(futures, batch) {
                do {
                    let code = try future.wait().status.code
                    if !(200..<300).contains(code), problem == nil {
                        problem = "PUT \(Self.shown(upload.path)): HTTP \(code)"
                    }
                } catch {
                    if problem == nil { problem = Self.describe(error, upload.path, host: host) }
                }
            }
            if let problem { return problem }
        }
        return nil
    }

    package func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        try? client.syncShutdown()
        try? group.syncShutdownGracefully()
    }

    /// A short reason in words (`connection refused`, `TLS handshake failed`), not a dump of the
    /// error's fields; `path`: what was asked, named when the answer to it was wrong.
    static func describe(_ error: Error, _ path: String, host: String) -> String {
        if error is BoundedBody.TooLarge { return "GET \(Self.shown(path)): the answer is larger than it may be" }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "could not connect in time"
            case .readTimeout, .deadlineExceeded: return "no answer in time"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .invalidURL, .emptyHost: return "not a URL it can use"
            default: break
            }
        }
        if error is HTTPParserError { return "the answer is not HTTP" }
        if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .eof {
            return "the server closed the connection"
        }
        // Matched on the error's type and case names only: a host's name ("cache.invalid") is no
        // reason.
        let kind = String(reflecting: type(of: error))
        let text = "\(error)"
        if kind.contains("NIOSSL") || kind.contains("BoringSSL") {
            return text.contains("WRONG_VERSION_NUMBER") || text.contains("wrong version number")
                ? "TLS handshake failed (the server does not speak TLS: is it an http:// URL?)" : "TLS handshake failed"
        }
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("SocketAddressError") || text.contains("dnsAError") || text.contains("dnsAAAAError") {
            return "cannot find the host \(host)"
        }
        return text.count > 120 ? String(text.prefix(120)) + "…" : text
    }

    /// `ac/<sha256>` as messages show it: `ac/…`.
    private static func shown(_ path: String) -> String { path.prefix { $0 != "/" } + "/…" }

    /// `http://user:token@host/x` → `http://host/x`: the URL as warnings show it.
    package static func withoutCredentials(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<hostEnd].lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + rest[rest.index(after: at)...]
    }
}

/// A `GET`'s answer, its body kept only up to a limit: a longer body (announced or received) fails
/// the request at once, so an endless one is never held (docs/manual/cache.md). The body of an
/// answer other than 200 is not kept, and it too is bounded.
final class BoundedBody: HTTPClientResponseDelegate, @unchecked Sendable {
    struct Response {
        var status: UInt
        var body: [UInt8]
    }

    struct TooLarge: Error {}

    /// For answers other than 200 (an error page).
    private static let otherLimit: Int64 = 1 << 20
    private let limit: Int64
    // Touched on the request's event loop only, one call at a time.
    private var status: UInt = 0
    private var body: [UInt8] = []
    private var received: Int64 = 0

    init(limit: Int64) { self.limit = limit }

    private var bound: Int64 { status == 200 ? limit : Self.otherLimit }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        status = head.status.code
        if let announced = head.headers.first(name: "Content-Length").flatMap({ Int64($0) }), announced > bound {
            return task.eventLoop.makeFailedFuture(TooLarge())
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        received += Int64(buffer.readableBytes)
        guard received <= bound else { return task.eventLoop.makeFailedFuture(TooLarge()) }
        if status == 200 { body += buffer.readableBytesView }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        Response(status: status, body: status == 200 ? body : [])
    }
}
