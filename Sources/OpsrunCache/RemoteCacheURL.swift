import AsyncHTTPClient

/// A shared cache's URL taken apart as far as opsrun checks it before a run (docs/manual/cache.md):
/// a URL it cannot use is a usage error before anything runs, not a crash after a task ran.
package struct RemoteCacheURL: Sendable {
    package var scheme: String
    package var host: String
    package var port: Int?

    /// `nil` when `text` has no `scheme://`.
    package init?(_ text: String) {
        guard let separator = text.firstRange(of: "://") else { return nil }
        scheme = text[..<separator.lowerBound].lowercased()
        var authority = text[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        // `[::1]:8080`: the port is after the bracket.
        let hostEnd = authority.hasPrefix("[") ? authority.firstIndex(of: "]").map { authority.index(after: $0) } : nil
        let portSeparator = authority[(hostEnd ?? authority.startIndex)...].firstIndex(of: ":")
        host = String(authority[..<(portSeparator ?? authority.endIndex)])
        if let portSeparator {
            port = Int(authority[authority.index(after: portSeparator)...]) ?? -1
        }
    }

    /// Why opsrun cannot use `text` as its shared cache, to follow the URL as shown ("'URL' names
    /// no host"), or `nil` when it can.
    package static func problem(_ text: String) -> String? {
        guard let url = RemoteCacheURL(text), url.scheme == "http" || url.scheme == "https" else {
            return "is not an http:// or https:// URL"
        }
        if url.host.isEmpty { return "names no host" }
        if let port = url.port, !(1...65535).contains(port) { return "has no port opsrun can use (a number from 1 to 65535)" }
        guard (try? HTTPClient.Request(url: text + "/ac/0")) != nil else { return "is not a URL opsrun can use" }
        return nil
    }
}
