import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback server of Bazel's HTTP cache protocol that answers what its test scripts: a crafted
/// `ActionResult` for any `ac/` key, a blob, or a body that never ends. Every connection gets one
/// answer and is closed. `PUT` is answered 201 and its body dropped. The accepting thread is joined
/// at deinit; a connection's thread ends when opsrun closes its end.
final class HostileCacheServer: @unchecked Sendable {
    enum Answer: Sendable {
        case body([UInt8])
        case status(Int)
        /// `200 OK` and bytes until the client goes away; `announcing` a `Content-Length`, or none
        /// (the body then ends when the connection does).
        case endless(announcing: Int?)
    }

    let port: UInt16
    private let listener: Int32
    private var thread: pthread_t?
    private let answer: @Sendable (_ method: String, _ path: String) -> Answer
    private let lock = NSLock()
    private var requests: [String] = []

    var url: String { "http://127.0.0.1:\(port)" }
    /// `GET ac/…`, `PUT cas/…`: what was asked, in order.
    var asked: [String] { lock.withLock { requests } }

    /// `answer`: the reply to a request, given its method and its path without the leading `/`.
    init(_ answer: @escaping @Sendable (_ method: String, _ path: String) -> Answer) throws {
        self.answer = answer
        (listener, port) = try listeningOnLoopback()
        var made = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        guard pthread_create(&made, nil, { raw in
            let server = Unmanaged<HostileCacheServer>.fromOpaque(raw!).takeRetainedValue()
            server.acceptConnections()
            return nil
        }, context) == 0 else { throw ServerError("cannot start a thread") }
        thread = made
    }

    /// Stops accepting and joins the accepting thread (deinit cannot run while it holds `self`).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        if let thread { pthread_join(thread, nil) }
        thread = nil
        close(listener)
    }

    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { return }
            Thread.detachNewThread { [self] in
                serve(connection)
                close(connection)
            }
        }
    }

    private func serve(_ connection: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let terminator = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            received += buffer[..<count]
            // Not a request (a TLS handshake): answered as a plain HTTP server does.
            if !(65...90).contains(received[0]) {
                _ = send(connection, Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                return
            }
            headerEnd = received.indices.dropLast(3).first { Array(received[$0..<$0 + 4]) == terminator }
        }
        let head = String(decoding: received[..<headerEnd!], as: UTF8.self)
        let words = head.split(separator: " ", maxSplits: 2)
        guard words.count >= 2 else { return }
        let method = String(words[0])
        let path = String(words[1].drop { $0 == "/" })
        lock.withLock { requests.append(method + " " + path) }
        // A `PUT`'s body is read to its end before the answer.
        let length = head.split(separator: "\r\n").compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        var bodyReceived = received.count - (headerEnd! + 4)
        while bodyReceived < length {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            bodyReceived += count
        }
        switch method == "PUT" ? .status(201) : answer(method, path) {
        case .body(let bytes):
            _ = send(connection, Array("HTTP/1.1 200 OK\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n".utf8) + bytes)
        case .status(let code):
            _ = send(connection, Array("HTTP/1.1 \(code) Whatever\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        case .endless(let announced):
            let length = announced.map { "Content-Length: \($0)\r\n" } ?? ""
            guard send(connection, Array("HTTP/1.1 200 OK\r\n\(length)Connection: close\r\n\r\n".utf8)) else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 256 * 1024)
            while send(connection, chunk) {}
        }
    }

    /// Writes all of `bytes`; `false` once the client has gone (no SIGPIPE: `MSG_NOSIGNAL`).
    private func send(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(connection, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }
}

/// A Remote Execution API `ActionResult`, encoded by hand (the tests cannot see opsrun's generated
/// types): what a hostile or broken server may answer for `ac/<key>`.
struct CraftedEntry {
    struct File {
        var path: String
        var contents: [UInt8]
        var mode: UInt32 = 0o644
        /// The bytes inside the entry (`contents`), else named by digest only (`cas/<sha256>`).
        var inline = true
        /// The digest's size, when it must lie.
        var size: Int?
        /// The digest's hash, when it must lie.
        var hash: String?

        init(_ path: String, _ text: String, mode: UInt32 = 0o644) {
            self.path = path
            contents = Array(text.utf8)
            self.mode = mode
        }
    }

    var files: [File]
    var standardOutput: [UInt8] = []

    var bytes: [UInt8] {
        var result: [UInt8] = []
        for file in files {
            var output = Self.field(1, Array(file.path.utf8))
            output += Self.field(2, Self.digest(hash: file.hash ?? sha256Hex(file.contents), size: file.size ?? file.contents.count))
            if file.mode & 0o111 != 0 { output += Self.varintField(4, 1) }
            if file.inline { output += Self.field(5, file.contents) }
            // NodeProperties { unix_mode: UInt32Value { value } }
            output += Self.field(7, Self.field(3, Self.varintField(1, UInt64(file.mode))))
            result += Self.field(2, output)
        }
        if !standardOutput.isEmpty {
            result += Self.field(5, standardOutput)
            result += Self.field(6, Self.digest(hash: sha256Hex(standardOutput), size: standardOutput.count))
        }
        return result
    }

    static func digest(hash: String, size: Int) -> [UInt8] {
        field(1, Array(hash.utf8)) + (size == 0 ? [] : varintField(2, UInt64(size)))
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        repeat {
            bytes.append(UInt8(value & 0x7f) | (value >= 0x80 ? 0x80 : 0))
            value >>= 7
        } while value != 0
        return bytes
    }

    static func varintField(_ number: UInt64, _ value: UInt64) -> [UInt8] { varint(number << 3) + varint(value) }

    /// A length-delimited field (a string, bytes, a message).
    static func field(_ number: UInt64, _ bytes: [UInt8]) -> [UInt8] {
        varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes
    }
}

/// SHA-256 of `bytes` in lower-case hex (FIPS 180-4), for crafting entries: the test target links
/// no crypto library.
func sha256Hex(_ bytes: [UInt8]) -> String {
    let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
    var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    var message = bytes + [0x80]
    while message.count % 64 != 56 { message.append(0) }
    let bits = UInt64(bytes.count) * 8
    for shift in stride(from: 56, through: 0, by: -8) { message.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
    var w = [UInt32](repeating: 0, count: 64)
    for block in stride(from: 0, to: message.count, by: 64) {
        for i in 0..<16 {
            w[i] = (0..<4).reduce(0) { $0 << 8 | UInt32(message[block + i * 4 + $1]) }
        }
        for i in 16..<64 {
            let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
        for i in 0..<64 {
            let t1 = hh &+ (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
            let t2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        for (i, value) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ value }
    }
    return h.map { String(format: "%08x", $0) }.joined()
}
