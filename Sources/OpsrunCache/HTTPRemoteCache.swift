import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix

/// Bazel's HTTP cache protocol over AsyncHTTPClient (SPEC §12): `GET`/`PUT <base>/ac/<sha256>` and
/// `<base>/cas/<sha256>`, which bazel-remote, nginx with WebDAV `PUT` and cloud buckets behind
/// one all serve. Made only when `--remote-cache` is given, so a run without it starts no
/// thread and opens no socket. Its one event-loop thread is owned here and joined by `shutdown`.
///
/// Every request is bounded (connect and whole-request timeouts): a server that hangs costs one
/// wait, after which the cache stops asking it for the rest of the run.
package final class HTTPRemoteCache: RemoteCacheClient {
    private let base: String
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
        client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
    }

    deinit { shutdown() }

    package func get(_ path: String) -> RemoteReply {
        do {
            let request = try HTTPClient.Request(url: base + "/" + path, method: .GET, headers: headers)
            return Self.reply(to: try client.execute(request: request, deadline: .now() + requestTimeout).wait(), path)
        } catch {
            return .failed(Self.describe(error))
        }
    }

    /// Answers on the client's event-loop thread, when the response or the deadline comes.
    package func get(_ path: String, completion: @escaping @Sendable (RemoteReply) -> Void) {
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: base + "/" + path, method: .GET, headers: headers)
        } catch {
            return completion(.failed(Self.describe(error)))
        }
        client.execute(request: request, deadline: .now() + requestTimeout).whenComplete { result in
            switch result {
            case .success(let response): completion(Self.reply(to: response, path))
            case .failure(let error): completion(.failed(Self.describe(error)))
            }
        }
    }

    private static func reply(to response: HTTPClient.Response, _ path: String) -> RemoteReply {
        switch response.status.code {
        case 200:
            guard var body = response.body else { return .found([]) }
            return .found(body.readBytes(length: body.readableBytes) ?? [])
        case 404: return .missing
        default: return .failed("GET \(path.prefix(3))…: HTTP \(response.status.code)")
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
                    return Self.describe(error)
                }
            }
            var problem: String?
            // Every future is waited for, so none is left running after a failure.
            for (future, upload) in zip(futures, batch) {
                do {
                    let code = try future.wait().status.code
                    if !(200..<300).contains(code), problem == nil {
                        problem = "PUT \(upload.path.prefix(3))…: HTTP \(code)"
                    }
                } catch {
                    if problem == nil { problem = Self.describe(error) }
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

    /// A short reason: `connection refused`, `timed out`, not a dump of the error's fields.
    static func describe(_ error: Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "could not connect in time"
            case .readTimeout, .deadlineExceeded: return "no answer in time"
            case .remoteConnectionClosed: return "the server closed the connection"
            case .invalidURL, .emptyHost: return "not a URL it can use"
            default: break
            }
        }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("HTTPParserError") || text.contains("invalid") { return "the answer is not HTTP" }
        return text.count > 120 ? String(text.prefix(120)) + "…" : text
    }

    /// `http://user:token@host/x` → `http://host/x`: the URL as warnings show it.
    package static func withoutCredentials(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<hostEnd].lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + rest[rest.index(after: at)...]
    }
}
