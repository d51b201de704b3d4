import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real HTTP cache server for the remote cache's tests: nginx with WebDAV `PUT`, as teams run
/// it, on a free loopback port, in a temporary prefix; stopped (and its prefix removed) at deinit.
/// `.ci/run` installs nginx when it is missing; a test that cannot start it fails saying why.
final class NginxCacheServer {
    let prefix: String
    let port: UInt16
    private let process: Process

    var url: String { "http://127.0.0.1:\(port)" }
    /// Where the server keeps what was `PUT`: `root/ac/<sha256>`, `root/cas/<sha256>`.
    var root: String { prefix + "/root" }

    /// `requiredAuthorization`: answer 401 unless the `Authorization` header is exactly this.
    init(requiredAuthorization: String? = nil) throws {
        guard let nginx = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw ServerError("nginx is not installed (.ci/run installs nginx-light; apt-get install -y nginx-light)") }
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-nginx-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: prefix + "/root", withIntermediateDirectories: true)
        port = try freeLoopbackPort()
        let check = requiredAuthorization.map { "if ($http_authorization != \"\($0)\") { return 401; }" } ?? ""
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(prefix)/body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                client_max_body_size 0;
                server {
                    listen 127.0.0.1:\(port);
                    root \(prefix)/root;
                    location / {
                        \(check)
                        dav_methods PUT;
                        create_full_put_path on;
                        dav_access user:rw group:r all:r;
                    }
                }
            }
            """
        try config.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", prefix, "-c", prefix + "/nginx.conf", "-e", prefix + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !acceptsConnections(port: port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOfFile: prefix + "/error.log", encoding: .utf8)) ?? ""
                kill(process.processIdentifier, SIGKILL)
                throw ServerError("nginx did not start on 127.0.0.1:\(port): \(log)")
            }
            usleep(10_000)
        }
    }

    /// What the server holds under `ac/` and `cas/`.
    func stored(_ kind: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + kind)) ?? []
    }

    deinit {
        // SIGKILL: a child of Foundation's Process may start with SIGTERM blocked (DESIGN.md),
        // and nginx without a master process has no workers to leave behind.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: prefix)
    }
}

/// A loopback listener that misbehaves as a broken cache server does: `hang` accepts and never
/// answers; `garbage` answers every connection with bytes that are not HTTP. Its thread is joined
/// at deinit.
final class BrokenServer {
    enum Behaviour { case hang, garbage }
    let port: UInt16
    private let listener: Int32
    private var thread: pthread_t?

    var url: String { "http://127.0.0.1:\(port)" }

    init(_ behaviour: Behaviour) throws {
        (listener, port) = try listeningOnLoopback()
        let context = Unmanaged.passRetained(Box(listener: listener, behaviour: behaviour)).toOpaque()
        var made = pthread_t()
        guard pthread_create(&made, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.serve()
            return nil
        }, context) == 0 else { throw ServerError("cannot start a thread") }
        thread = made
    }

    private final class Box {
        let listener: Int32
        let behaviour: Behaviour
        var connections: [Int32] = []
        init(listener: Int32, behaviour: Behaviour) {
            self.listener = listener
            self.behaviour = behaviour
        }

        func serve() {
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 { break }
                switch behaviour {
                case .hang: connections.append(connection)
                case .garbage:
                    // Answers once the request has come, as a server does: garbage sent before the
                    // request reached a connection the client's pool held idle, which it dropped
                    // for another, and the client sometimes waited out its time limit instead.
                    Self.readRequestHead(from: connection)
                    let text = Array("\u{01}\u{02}garbage, not HTTP\r\n\r\n".utf8)
                    _ = text.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                    // Kept open (closed at deinit): closed at once, the client could see the
                    // connection closed before it read the garbage, and say that instead.
                    connections.append(connection)
                }
            }
            for connection in connections { close(connection) }
        }

        /// Reads until the end of a request's head (a blank line), the connection's end, or 64 KiB.
        static func readRequestHead(from connection: Int32) {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while received.count < 64 << 10 {
                let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                if count <= 0 { return }
                received += buffer[..<count]
                if received.count >= 4, received.suffix(4).elementsEqual([13, 10, 13, 10]) { return }
            }
        }
    }

    deinit {
        // Wakes the blocked accept with an error, so the thread ends.
        shutdown(listener, Int32(SHUT_RDWR))
        if let thread { pthread_join(thread, nil) }
        close(listener)
    }
}

struct ServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A socket listening on a free loopback port, and the port.
func listeningOnLoopback() throws -> (listener: Int32, port: UInt16) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(listener, pointer, length) == 0 && getsockname(listener, pointer, &length) == 0
        }
    }
    guard bound, listen(listener, 64) == 0 else {
        close(listener)
        throw ServerError("cannot listen on loopback")
    }
    return (listener, UInt16(bigEndian: address.sin_port))
}

private func loopback(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}

/// A port nothing listens on now (bound, read, closed): for a server to take, or to be refused at.
func freeLoopbackPort() throws -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
        }
    }
    guard bound else { throw ServerError("no free loopback port") }
    return UInt16(bigEndian: address.sin_port)
}

func acceptsConnections(port: UInt16) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
