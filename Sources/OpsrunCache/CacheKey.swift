#if canImport(Glibc)
import Glibc
#endif
import Crypto
import OpsrunIncremental

/// The name of a task's entry in a cache (docs/manual/cache.md): SHA-256, as lowercase hex, over the cache's
/// format, the machine it runs on, the task's fingerprint (commands, variables, `dir`, arguments,
/// sources' content, prerequisites' outputs' content) and the outputs it declares.
///
/// The fingerprint names directories and files relative to the manifest, so two clones of a
/// project at different paths share keys; the machine keeps an x86-64 entry from an arm64 run.
package struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    /// 64 lowercase hex digits: the name under `ac/` locally and on a server.
    package let hex: String

    /// Changes whenever what an entry means changes, so old entries are never misread.
    /// 2: the task's name in the key, `sh -e`, cleanup and shell in the definition.
    static let format = "opsrun output cache 2"

    /// `task`: the task's name (`web:compile[src/a.c]`): its commands see it (`$OPSRUN_TASK`,
    /// `$0`), so two tasks with the same commands are not one entry.
    /// `depfile`: a task with one keys the list of its candidates (docs/cache.md, "Depfile tasks"),
    /// never an entry of outputs, so the same task without it never reads one as the other.
    package init(
        task: String, definition: ContentDigest, outputs: [String], depfile: String? = nil,
        platform: String = CacheKey.platform
    ) {
        var bytes: [UInt8] = []
        func add(_ text: String) {
            withUnsafeBytes(of: UInt64(text.utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: text.utf8)
        }
        add(Self.format)
        add(platform)
        add(task)
        bytes.append(contentsOf: definition.bytes)
        withUnsafeBytes(of: UInt64(outputs.count).littleEndian) { bytes.append(contentsOf: $0) }
        for output in outputs { add(output) }
        // Nothing without one: the keys of tasks without a depfile are what they were.
        if let depfile {
            add("depfile")
            add(depfile)
        }
        hex = Hex.sha256(bytes)
    }

    /// The key of the entry a depfile task's candidate leads to (docs/cache.md, "Depfile tasks"):
    /// SHA-256 over the task's key without discovered inputs (`base`) and the inputs its depfile
    /// listed, each path with its content's digest.
    package init(_ base: CacheKey, discovered inputs: [FileDigest]) {
        var bytes: [UInt8] = []
        func add(_ text: String) {
            withUnsafeBytes(of: UInt64(text.utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: text.utf8)
        }
        add("opsrun depfile candidate 1")
        add(base.hex)
        withUnsafeBytes(of: UInt64(inputs.count).littleEndian) { bytes.append(contentsOf: $0) }
        for input in inputs {
            add(input.path)
            bytes.append(contentsOf: input.digest.bytes)
        }
        hex = Hex.sha256(bytes)
    }

    package var description: String { hex }

    /// The kernel and machine (`Linux x86_64`), read once.
    package static let platform: String = {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown" }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return text(names.sysname) + " " + text(names.machine)
    }()
}

/// SHA-256 digests as the cache protocol spells them: 64 lowercase hex digits (`ContentDigest`'s
/// `description`, the same hash the up-to-date checks use).
package enum Hex {
    package static func sha256(_ bytes: [UInt8]) -> String { ContentDigest.of(bytes).description }

    /// Whether `text` is a SHA-256 as the protocol names one (and so safe as a file name).
    package static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
