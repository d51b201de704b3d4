import OpsrunCache
import OpsrunCore
import OpsrunManifest

/// Where the output cache lives and what it may do (docs/manual/cache.md), from the command line and opsrun's
/// environment: `--cache-dir`, `OPSRUN_CACHE_DIR`, `$XDG_CACHE_HOME/opsrun`, `~/.cache/opsrun`.
struct CacheSettings {
    /// The local cache's directory; `nil` when the cache is off (`--no-cache`, `OPSRUN_NO_CACHE`,
    /// or no directory to put it in).
    var directory: String?
    var sizeLimit: UInt64
    /// `--remote-cache URL` or `OPSRUN_REMOTE_CACHE`.
    var remoteURL: String?
    var remoteWrites: Bool
    /// `OPSRUN_REMOTE_CACHE_HEADER`: `Name: value`, sent with every request and never printed.
    var remoteHeader: (name: String, value: String)?
    /// `OPSRUN_REMOTE_CACHE_TIMEOUT` (`10s`, `500ms`): how long one request may take; connecting
    /// gets at most 2 s of it.
    var remoteTimeoutMilliseconds = 10_000

    static let defaultSizeLimit: UInt64 = 5 << 30

    init(_ invocation: Invocation, environment: [String: String], workingDirectory: @autoclosure () -> String) {
        sizeLimit = invocation.cacheSizeLimit ?? Self.defaultSizeLimit
        remoteWrites = !invocation.remoteCacheReadOnly
        let off = invocation.noCache || Self.isSet(environment["OPSRUN_NO_CACHE"])
        remoteURL = off ? nil : Self.nonEmpty(invocation.remoteCache ?? environment["OPSRUN_REMOTE_CACHE"])
        if let header = Self.nonEmpty(environment["OPSRUN_REMOTE_CACHE_HEADER"]), let colon = header.firstIndex(of: ":") {
            let name = header[..<colon].trimmingSpaces
            if !name.isEmpty { remoteHeader = (name, header[header.index(after: colon)...].trimmingSpaces) }
        }
        if let text = Self.nonEmpty(environment["OPSRUN_REMOTE_CACHE_TIMEOUT"]),
            let milliseconds = GraceDuration.milliseconds(text), milliseconds > 0
        {
            remoteTimeoutMilliseconds = milliseconds
        }
        guard !off else { return }
        if let chosen = Self.nonEmpty(invocation.cacheDirectory ?? environment["OPSRUN_CACHE_DIR"]) {
            directory = chosen.hasPrefix("/") ? chosen : workingDirectory() + "/" + chosen
        } else if let base = Self.nonEmpty(environment["XDG_CACHE_HOME"]), base.hasPrefix("/") {
            directory = base + "/opsrun"
        } else if let home = Self.nonEmpty(environment["HOME"]), home.hasPrefix("/") {
            directory = home + "/.cache/opsrun"
        }
    }

    /// Why these settings are a usage error (a server URL opsrun cannot use, a header that is not
    /// one), in words that show neither the URL's password nor the header's value; `nil` when
    /// they are not. Checked before anything runs.
    static func usageError(_ invocation: Invocation, environment: [String: String]) -> String? {
        guard !(invocation.noCache || isSet(environment["OPSRUN_NO_CACHE"])) else { return nil }
        let fromOption = nonEmpty(invocation.remoteCache)
        guard let url = fromOption ?? nonEmpty(environment["OPSRUN_REMOTE_CACHE"]) else { return nil }
        if let problem = RemoteCacheURL.problem(url) {
            let source = fromOption != nil ? "--remote-cache" : "OPSRUN_REMOTE_CACHE"
            return "\(source): '\(HTTPRemoteCache.withoutCredentials(url))' \(problem)"
        }
        guard let header = nonEmpty(environment["OPSRUN_REMOTE_CACHE_HEADER"]) else { return nil }
        let form = "OPSRUN_REMOTE_CACHE_HEADER takes 'Name: value' (e.g. 'Authorization: Bearer …')"
        guard let colon = header.firstIndex(of: ":") else { return form + "; it has no ':'" }
        let name = header[..<colon].trimmingSpaces
        let value = header[header.index(after: colon)...]
        // A token (RFC 9110) and a value without line breaks: anything else would be sent as
        // another header, or refused by the client only when the first request is made.
        let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !name.isEmpty, name.allSatisfy(tokenCharacters.contains),
            !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
        else { return form + "; its name or value is not one HTTP allows" }
        return nil
    }

    /// `OPSRUN_NO_CACHE=1` (anything but empty, `0` or `false`).
    private static func isSet(_ value: String?) -> Bool {
        guard let value, !value.isEmpty else { return false }
        return value != "0" && value.lowercased() != "false"
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// `--cache-size`: bytes, or a number with `K`, `M`, `G`, `T` (powers of 1024, an optional
    /// `iB`/`B` after it): `5G`, `500MiB`, `1048576`. `nil` for anything else.
    static func parseSize(_ text: String) -> UInt64? {
        var digits = Substring(text.trimmingSpaces)
        for suffix in ["iB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits = digits.dropLast(suffix.count)
            break
        }
        var shift: UInt64 = 0
        switch digits.last.map({ Character($0.uppercased()) }) {
        case "K": shift = 10
        case "M": shift = 20
        case "G": shift = 30
        case "T": shift = 40
        default: break
        }
        if shift > 0 { digits = digits.dropLast() }
        guard let number = UInt64(digits), number > 0, number <= UInt64.max >> shift else { return nil }
        return number << shift
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

extension Invocation {
    /// Reads a `--cache-size` value (`5G`, `500MiB`, bytes); `nil` when it is not one.
    public static func cacheSize(_ text: String) -> UInt64? { CacheSettings.parseSize(text) }
}
