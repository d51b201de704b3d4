#if canImport(Glibc)
import Glibc
#endif
import OpsrunCore

/// The output cache of a run (SPEC §12): restores a task's outputs and log from the local store or,
/// failing that, from a shared server, and stores them after a success. It can only make a run
/// faster: whatever does not check out (a missing or foreign entry, a blob whose SHA-256 is not its
/// name, a server that fails) is a miss, and the task runs as usual.
package final class OutputCache {
    package let local: LocalCacheStore
    private let remote: RemoteCacheClient?
    private let remoteWrites: Bool
    private let sizeLimit: UInt64
    /// Entries to upload when the run ends, so that no task waits on the network to finish.
    private var uploads: [(key: CacheKey, entry: CacheEntry, bytes: [UInt8])] = []
    private var stored = false
    /// Set after the first failure of the server: from then on it is not asked again this run.
    package private(set) var remoteProblem: String?
    /// Called once with the server's first failure (the one warning of SPEC §12).
    package var onRemoteProblem: ((String) -> Void)?

    /// Entries restored and stored, for `-v` and the tests.
    package private(set) var restoredCount = 0
    package private(set) var storedCount = 0

    package init(directory: String, sizeLimit: UInt64, remote: RemoteCacheClient? = nil, remoteWrites: Bool = true) {
        local = LocalCacheStore(root: directory)
        self.remote = remote
        self.remoteWrites = remoteWrites
        self.sizeLimit = sizeLimit
    }

    /// What a restore hands back besides the files it wrote: the log to replay.
    package struct Restored: Sendable {
        package var standardOutput: [UInt8]
        package var standardError: [UInt8]
        /// The paths written, relative to the task's directory.
        package var files: [String]
    }

    /// Restores the outputs stored under `key` into `directory` and returns the log, or `nil` (and
    /// nothing changed unless a file failed half way) when the cache cannot provide all of them.
    /// `required`: the outputs written without wildcards, each of which the entry must hold.
    package func restore(_ key: CacheKey, into directory: String, required: [String]) -> Restored? {
        var bytes = local.entry(key)
        var fromServer = false
        if bytes == nil, let found = fetch("ac/" + key.hex) {
            bytes = found
            fromServer = true
        }
        guard let bytes, let entry = CacheEntry(decoding: bytes) else { return nil }
        let paths = Set(entry.files.map(\.path))
        guard required.allSatisfy(paths.contains), paths.count == entry.files.count else { return nil }
        // Every blob first, so that a miss changes no file.
        var fetched: [String: [UInt8]] = [:]
        for blob in entry.blobs where fetched[blob.hash] == nil && !local.hasBlob(blob) {
            guard let body = fetch("cas/" + blob.hash), Int64(body.count) == blob.size, Hex.sha256(body) == blob.hash
            else { return nil }
            local.storeBlob(body, hash: blob.hash)
            fetched[blob.hash] = body
        }
        func log(_ blob: CacheEntry.Blob?) -> [UInt8]? {
            guard let blob else { return [] }
            return fetched[blob.hash] ?? local.readBlob(blob)
        }
        guard let standardOutput = log(entry.standardOutput), let standardError = log(entry.standardError) else {
            return nil
        }
        for file in entry.files {
            guard write(file, into: directory, fetched: fetched[file.blob.hash]) else { return nil }
        }
        if fromServer { local.storeEntry(bytes, for: key) }
        restoredCount += 1
        return Restored(standardOutput: standardOutput, standardError: standardError, files: entry.files.map(\.path))
    }

    /// Writes one output beside its place and renames it there, so a reader never sees a part.
    private func write(_ file: CacheEntry.File, into directory: String, fetched: [UInt8]?) -> Bool {
        let destination = directory.hasSuffix("/") ? directory + file.path : directory + "/" + file.path
        let parent = Directories.parentPath(of: destination)
        if !parent.isEmpty, Directories.make(parent) != nil { return false }
        let temporary = destination + ".opsrun-\(getpid()).tmp"
        if let fetched {
            guard BlobFile.write(fetched, to: temporary, mode: file.mode) else { return false }
        } else {
            guard let copied = BlobFile.copy(from: local.blobPath(file.blob.hash), to: temporary, mode: file.mode),
                copied == file.blob
            else {
                unlink(temporary)
                // A damaged blob must not be found again.
                unlink(local.blobPath(file.blob.hash))
                return false
            }
        }
        guard rename(temporary, destination) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// Stores a task that succeeded: `files` are its outputs (relative to `directory`) with the
    /// SHA-256 they had when the run hashed them; a file changed since, or one the protocol cannot
    /// name, stores nothing. Returns whether the entry was stored.
    @discardableResult
    package func store(
        _ key: CacheKey, directory: String, files: [(path: String, hash: String)],
        standardOutput: [UInt8], standardError: [UInt8]
    ) -> Bool {
        var entry = CacheEntry(files: [])
        for (path, hash) in files {
            guard CacheEntry.isSafeRelativePath(path) else { return false }
            let source = directory.hasSuffix("/") ? directory + path : directory + "/" + path
            var info = stat()
            guard stat(source, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                let blob = local.storeBlob(copying: source, expected: hash)
            else { return false }
            entry.files.append(CacheEntry.File(path: path, blob: blob, mode: UInt32(info.st_mode) & 0o7777))
        }
        for (bytes, isOutput) in [(standardOutput, true), (standardError, false)] where !bytes.isEmpty {
            let blob = CacheEntry.Blob(hash: Hex.sha256(bytes), size: Int64(bytes.count))
            guard local.storeBlob(bytes, hash: blob.hash) else { return false }
            if isOutput { entry.standardOutput = blob } else { entry.standardError = blob }
        }
        let bytes = entry.encoded
        guard local.storeEntry(bytes, for: key) else { return false }
        stored = true
        storedCount += 1
        if remote != nil, remoteWrites { uploads.append((key, entry, bytes)) }
        return true
    }

    /// Uploads what the run stored (blobs first, the entry last, so a server never names a blob it
    /// lacks) and keeps the local cache within its size. Call once, when the run ends.
    package func finish() {
        if let remote, remoteProblem == nil, !uploads.isEmpty {
            var batch: [(path: String, bytes: [UInt8])] = []
            var sent: Set<String> = []
            for upload in uploads {
                for blob in upload.entry.blobs where sent.insert(blob.hash).inserted {
                    guard let body = local.readBlob(blob) else { continue }
                    batch.append(("cas/" + blob.hash, body))
                }
            }
            if let problem = remote.put(batch) {
                report(problem)
            } else if let problem = remote.put(uploads.map { ("ac/" + $0.key.hex, $0.bytes) }) {
                report(problem)
            }
        }
        uploads = []
        remote?.shutdown()
        if stored { CacheEviction.trim(root: local.root, limit: sizeLimit) }
    }

    /// The server's body for `path`, or `nil` for a miss or a failure (reported once).
    private func fetch(_ path: String) -> [UInt8]? {
        guard let remote, remoteProblem == nil else { return nil }
        switch remote.get(path) {
        case .found(let body): return body
        case .missing: return nil
        case .failed(let problem):
            report(problem)
            return nil
        }
    }

    private func report(_ problem: String) {
        guard remoteProblem == nil else { return }
        remoteProblem = problem
        onRemoteProblem?(problem)
    }
}
