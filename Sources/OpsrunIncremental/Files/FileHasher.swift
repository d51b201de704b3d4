// Content, not timestamps, decides whether a task is up to date, but reading every source on every
// run would make a no-op run cost as much as reading the whole tree. So, like git's index and
// ninja's restat, each file's stat (size, mtime, ctime, inode) is remembered with its digest, and a
// file whose stat is unchanged is not read again.
//
// The "racy" case: a file changed again within the file system's timestamp granularity after we
// read it keeps an identical stat but new content. A cached stat is trusted only if the file's last
// change (the later of mtime and ctime; ctime cannot be forged by `touch -d` or `cp -p`) was at least
// `racyWindowNanoseconds` before the moment we started reading it: any later write then necessarily
// moves the timestamps. The window is 2 s: FAT and exFAT store mtime in 2-second steps, some network
// file systems' clocks drift by a second or so, and the cost is only re-reading files changed in the
// 2 s before a run — usually the very files just edited or just built.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto

/// A file's digest with the stat it had when read.
public struct StatCacheEntry: Hashable, Sendable {
    public var status: FileStatus
    public var digest: ContentDigest
    /// The file's last change was safely before it was read, so an identical stat proves identical
    /// content. Untrusted entries are read again every time and never persisted.
    public var isTrusted: Bool

    public init(status: FileStatus, digest: ContentDigest, isTrusted: Bool) {
        self.status = status
        self.digest = digest
        self.isTrusted = isTrusted
    }
}

/// SHA-256 digests of files by absolute path, reading a file only when its stat says it may have changed.
public final class FileHasher {
    public static let defaultRacyWindowNanoseconds: Int64 = 2_000_000_000

    /// Entries learned or given in this run, by absolute path; they take precedence over `persisted`.
    public private(set) var entries: [String: StatCacheEntry]
    /// The state's stat cache, asked file by file (it decodes an entry only when asked).
    private let persisted: StateStore?
    /// Trusted entries added or replaced since the last `takeNewEntries()`.
    private var newEntries: [String: StatCacheEntry] = [:]
    private let racyWindow: Int64
    private let now: () -> Int64
    /// Where files are statted and read.
    let files: any FileAccess
    private var unreadableCount: UInt64 = 0
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)

    /// How many times file content was read: tests prove the cache spares reads with it.
    var contentReads = 0
    /// Asked before each file is read and between its chunks (a source can be gigabytes): `true`
    /// abandons the read, and every one after it (see `stop`).
    var shouldStop: (() -> Bool)?
    /// A read was abandoned: digests taken since are of nothing, so nothing must be recorded.
    private(set) var wasStopped = false

    /// - Parameters:
    ///   - persisted: the state whose stat cache entries are trusted as a starting point.
    ///   - now: wall-clock nanoseconds since 1970 (the clock file timestamps come from);
    ///     replaceable so tests can place a file's mtime inside or outside the racy window.
    public init(
        entries: [String: StatCacheEntry] = [:],
        persisted: StateStore? = nil,
        racyWindowNanoseconds: Int64 = FileHasher.defaultRacyWindowNanoseconds,
        now: (() -> Int64)? = nil, files: any FileAccess = DiskFiles()
    ) {
        self.entries = entries
        self.persisted = persisted
        self.racyWindow = racyWindowNanoseconds
        self.now = now ?? files.realtimeNanoseconds
        self.files = files
    }

    deinit { buffer.deallocate() }

    /// The content digest of what is at `path` (absolute), or `nil` when nothing is there.
    ///
    /// A directory has the fixed `ContentDigest.directory`, and a named pipe, device or socket the
    /// fixed `ContentDigest.notAFile` (nothing is read from it). A file that exists but cannot be read gets
    /// a digest that matches nothing, ever, so whatever depends on it runs (and its command reports the
    /// real problem).
    public func digest(ofFileAt path: String) -> ContentDigest? {
        digest(ofFileAt: path, opening: path, in: AT_FDCWD)
    }

    /// The same for the file `path` (absolute, the cache's key) reached as `relative` inside the
    /// open `directory` (see `FileSystem.openDirectory`); `relative` may be `path` itself.
    func digest(ofFileAt path: String, opening relative: String, in directory: Int32) -> ContentDigest? {
        digest(ofFileAt: path, opening: relative, in: directory, status: files.status(relative, in: directory))
    }

    /// The same with the file's stat already taken (`StatPrefetch`): `nil` when nothing was there.
    func digest(ofFileAt path: String, opening relative: String, in directory: Int32, status: FileStatus?) -> ContentDigest? {
        digest(ofFileAt: path, projectKey: nil, opening: relative, in: directory, status: status)
    }

    /// The same, where `projectKey` is the file's state key when the caller knows it (see
    /// `StateStore.statEntry(projectKey:)`): then a file found in the stat cache never
    /// needs its absolute path made, which a no-op run would otherwise do for every file.
    func digest(
        ofFileAt absolutePath: @autoclosure () -> String, projectKey: String?, opening relative: String,
        in directory: Int32, status: FileStatus?
    ) -> ContentDigest? {
        digestAndStatus(ofFileAt: absolutePath(), projectKey: projectKey, opening: relative, in: directory, status: status)?
            .digest
    }

    /// The digest of the file `relative` in `directory` (see `digest(ofFileAt:opening:in:)`) with
    /// the stat it belongs to: the stat of the file as read, or the one that matched the cache.
    func digestAndStatus(ofFileAt path: String, opening relative: String, in directory: Int32)
        -> (digest: ContentDigest, status: FileStatus)?
    {
        digestAndStatus(
            ofFileAt: path, projectKey: nil, opening: relative, in: directory,
            status: files.status(relative, in: directory))
    }

    private func digestAndStatus(
        ofFileAt absolutePath: @autoclosure () -> String, projectKey: String?, opening relative: String,
        in directory: Int32, status: FileStatus?
    ) -> (digest: ContentDigest, status: FileStatus)? {
        // A no-op run learns nothing: then `entries` is empty, and hashing the path for it is waste.
        guard let status else {
            if !entries.isEmpty { entries[absolutePath()] = nil }
            return nil
        }
        if status.kind == .directory { return (.directory, status) }
        // A named pipe would block the read, a device never end it: never opened.
        if status.kind == .other { return (.notAFile, status) }
        let cached: StatCacheEntry?
        if !entries.isEmpty, let learned = entries[absolutePath()] {
            cached = learned
        } else if let projectKey, let persisted {
            cached = persisted.statEntry(projectKey: projectKey)
        } else {
            cached = persisted?.statEntry(at: absolutePath())
        }
        if let cached, cached.isTrusted, cached.status == status {
            return (cached.digest, status)
        }
        let path = absolutePath()

        // Taken before the file is opened, so before any byte of it is read.
        let readStart = now()
        guard let (opened, digest) = read(relative, in: directory) else { return (unmatchableDigest(path), status) }
        let trusted = max(opened.modificationNanoseconds, opened.changeNanoseconds) + racyWindow <= readStart
        let entry = StatCacheEntry(status: opened, digest: digest, isTrusted: trusted)
        entries[path] = entry
        if trusted { newEntries[path] = entry }
        return (digest, opened)
    }

    /// The stat and digest that vouch for the file at `path` (absolute): as it was read this run,
    /// or as the stat cache knows it.
    func knownEntry(ofFileAt path: String) -> StatCacheEntry? {
        entries[path] ?? persisted?.statEntry(at: path)
    }

    /// Abandons every read from now on: such a file gets a digest that matches nothing, remembered
    /// nowhere, as a file that cannot be read does.
    func stop() { wasStopped = true }

    private func mustStop() -> Bool {
        if !wasStopped, let shouldStop, shouldStop() { wasStopped = true }
        return wasStopped
    }

    /// The trusted entries learned since the last call, for `StateStore` to persist.
    public func takeNewEntries() -> [(path: String, entry: StatCacheEntry)] {
        defer { newEntries = [:] }
        return newEntries.map { ($0.key, $0.value) }
    }

    /// Reads and hashes the file; the stat returned is the open file's, taken before reading.
    private func read(_ path: String, in directory: Int32) -> (FileStatus, ContentDigest)? {
        if mustStop() { return nil }
        var hasher = SHA256()
        var counted = false
        let status = files.read(path, in: directory, buffer: buffer) { bytes in
            if !counted {
                contentReads += 1
                counted = true
            }
            hasher.update(bufferPointer: bytes)
            return !mustStop()
        }
        guard let status else { return nil }
        if !counted { contentReads += 1 }
        return (status, ContentDigest(hasher.finalize()))
    }

    /// A digest no file's content has or ever will have (unique to this call).
    func unmatchableDigest(_ path: String) -> ContentDigest {
        unreadableCount += 1
        var hasher = CanonicalHasher(domain: "opsrun: unreadable")
        hasher.add(path)
        hasher.add(UInt64(bitPattern: now()))
        hasher.add(unreadableCount)
        return hasher.finalize()
    }
}
