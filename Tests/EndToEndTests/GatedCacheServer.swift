import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A read-only cache server that serves the files under `root` (what an `NginxCacheServer`
/// stored) but holds its answers to `ac/` requests until `holding` of them wait at once, or
/// `seconds` passed: it shows whether a client asks for several entries before the first is
/// answered. One request per connection (it answers `Connection: close`); one thread, polling its
/// sockets, joined at deinit.
final class GatedCacheServer {
    let port: UInt16
    private let listener: Int32
    private let state: Locked
    private var thread: pthread_t?

    var url: String { "http://127.0.0.1:\(port)" }
    /// The most `ac/` requests it held unanswered at once.
    var mostHeldAtOnce: Int { state.withLock { $0.mostHeld } }

    private final class Locked: @unchecked Sendable {
        struct Values {
            var mostHeld = 0
            var stopping = false
        }
        private let lock = NSLock()
        private var values = Values()
        func withLock<Result>(_ body: (inout Values) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(&values)
        }
    }

    init(serving root: String, holding: Int, seconds: Double = 5) throws {
        let listener: Int32
        (listener, port) = try listeningOnLoopback()
        self.listener = listener
        state = Locked()
        let loop = Loop(
            listener: listener, root: root, holding: holding, deadline: Date().addingTimeInterval(seconds), state: state)
        let context = Unmanaged.passRetained(loop).toOpaque()
        var made = pthread_t()
        guard pthread_create(&made, nil, { raw in
            Unmanaged<Loop>.fromOpaque(raw!).takeRetainedValue().serve()
            return nil
        }, context) == 0 else { throw ServerError("cannot start a thread") }
        thread = made
    }

    deinit {
        state.withLock { $0.stopping = true }
        if let thread { pthread_join(thread, nil) }
        close(listener)
    }

    private final class Loop {
        let listener: Int32
        let root: String
        let holding: Int
        let deadline: Date
        let state: Locked
        /// Connections whose request has not fully come yet, with what came.
        var reading: [Int32: [UInt8]] = [:]
        /// `ac/` requests not answered yet: the connection and the path asked for.
        var held: [(Int32, String)] = []
        var gateOpen = false

        init(listener: Int32, root: String, holding: Int, deadline: Date, state: Locked) {
            (self.listener, self.root, self.holding, self.deadline, self.state) = (listener, root, holding, deadline, state)
        }

        func serve() {
            while !state.withLock({ $0.stopping }) {
                var polled = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                polled += reading.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                // The timeout only lets it see `stopping` and the deadline; answers do not wait for it.
                guard poll(&polled, nfds_t(polled.count), 50) >= 0 else { continue }
                for entry in polled where entry.revents != 0 {
                    if entry.fd == listener {
                        let connection = accept(listener, nil, nil)
                        if connection >= 0 { reading[connection] = [] }
                    } else {
                        read(from: entry.fd)
                    }
                }
                if !gateOpen, held.count >= holding || Date() >= deadline { openGate() }
            }
            for (connection, _) in held { close(connection) }
            for connection in reading.keys { close(connection) }
        }

        private func read(from connection: Int32) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(connection, $0.baseAddress, $0.count) }
            guard count > 0 else {
                reading[connection] = nil
                close(connection)
                return
            }
            reading[connection, default: []] += buffer[..<count]
            let text = String(decoding: reading[connection]!, as: UTF8.self)
            guard text.contains("\r\n\r\n") else { return }
            reading[connection] = nil
            // "GET /ac/<hex> HTTP/1.1"
            let words = text.prefix { $0 != "\r" }.split(separator: " ")
            let path = words.count > 1 ? String(words[1].drop { $0 == "/" }) : ""
            if path.hasPrefix("ac/"), !gateOpen {
                held.append((connection, path))
                state.withLock { $0.mostHeld = max($0.mostHeld, held.count) }
            } else {
                answer(connection, path)
            }
        }

        private func openGate() {
            gateOpen = true
            for (connection, path) in held { answer(connection, path) }
            held = []
        }

        private func answer(_ connection: Int32, _ path: String) {
            let body = FileManager.default.contents(atPath: root + "/" + path).map { [UInt8]($0) }
            let head = body.map { "HTTP/1.1 200 OK\r\nContent-Length: \($0.count)\r\n" }
                ?? "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
            var bytes = Array((head + "Connection: close\r\n\r\n").utf8) + (body ?? [])
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(connection, $0.baseAddress, $0.count) }
                guard written > 0 else { break }
                bytes.removeFirst(written)
            }
            close(connection)
        }
    }
}
