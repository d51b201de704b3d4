#if canImport(Glibc)
import Glibc
#endif
import OpsrunCore

/// The output cache of a run (docs/manual/cache.md): restores a task's outputs and log from the
/// local store or, failing that, from a shared server, and stores them after a success. It can only
/// make a run faster: whatever does not check out (a missing or foreign entry, a blob whose SHA-256
/// is not its name, a server that fails) is a miss, and an entry that would write anything but the
/// task's outputs is refused; either way the task runs as usual.
package final class OutputCache {
    package let local: LocalCacheStore
    /// The server's client, made when first needed: a run that restores and stores nothing
    /// (every task up to date) starts no thread and opens no socket.
    private lazy var remote: RemoteCacheClient? = makeRemote?()
    private let makeRemote: (() -> RemoteCacheClient)?
    var hasRemote: Bool { makeRemote != nil }
    let remoteWrites: Bool
    private let sizeLimit: UInt64
    /// Entries to upload when the run ends, so that no task waits on the network to finish.
    var uploads: [(key: CacheKey, entry: CacheEntry)] = []
    var stored = false
    /// The candidate lists the server had for depfile tasks' keys (asked by a restore that found
    /// no match), so that storing adds to them rather than replacing them.
    var serverCandidates: [CacheKey: DepfileCandidates] = [:]
    private var remoteWasMade = false
    /// Fetches from the server ahead of restores, made with the first (a run with a server only).
    private var prefetch: RemotePrefetch?
    /// Set after the first failure of the server: from then on it is not asked again this run.
    package private(set) var remoteProblem: String?
    /// Called once with the server's first failure (the one warning of docs/manual/cache.md).
    package var onRemoteProblem: ((String) -> Void)?
    /// Why the local cache's directory cannot be used (`is not a directory`), found when the cache
    /// is first used: the cache is then off for the run.
    lazy var directoryProblem: String? = LocalCacheStore.problem(root: local.root)
    private var reportedDirectory = false
    /// Called once with `directoryProblem`.
    package var onUnusableDirectory: ((String) -> Void)?

    /// Entries restored and stored, for `-v` and the tests.
    package private(set) var restoredCount = 0
    package private(set) var storedCount = 0

    package init(
        directory: String, sizeLimit: UInt64, remote: (() -> RemoteCacheClient)? = nil, remoteWrites: Bool = true
    ) {
        local = LocalCacheStore(root: directory)
        makeRemote = remote
        self.remoteWrites = remoteWrites
        self.sizeLimit = sizeLimit
    }

    /// What a restore hands back besides the files it wrote: the log to replay.
    package struct Restored: Sendable {
        package var standardOutput: [UInt8]
        package var standardError: [UInt8]
        /// The paths written, relative to the task's directory.
        package var files: [String]
        /// Whether the entry came from the server (`--explain`: "the shared cache").
        package var fromServer = false
    }

    /// How a restore ended.
    package enum Outcome: Sendable {
        case restored(Restored)
        /// Not in the cache, or not all of it could be had: the task runs.
        case missed
        /// The entry would write where it may not (why, as the warning goes on: "names 'x',
        /// which is not one of its outputs"); nothing was written, and the task runs.
        case refused(String)
    }

    /// Restores the outputs stored under `key` into `place` and returns the log. Nothing is written
    /// (unless a file fails half way) when the cache cannot provide all of them, or when the entry
    /// names a path `place` does not allow or one reached through a symbolic link.
    package func restore(_ key: CacheKey, into place: OutputPlace) -> Outcome {
        if let problem = directoryProblem {
            reportDirectory(problem)
            return .missed
        }
        var bytes = local.entry(key)
        var fromServer = false
        // What a fetch ahead found of the blobs the entry names.
        var prefetchedBlobs: [String: RemoteReply] = [:]
        if bytes == nil, let found = remoteEntry(key, blobs: &prefetchedBlobs) {
            bytes = found
            fromServer = true
        }
        guard let bytes, var entry = CacheEntry(decoding: bytes) else { return .missed }
        // Every path before anything is fetched or written: one the task may not write refuses
        // the whole entry.
        let paths = entry.files.map { $0.path }
        for path in paths {
            if let reason = place.refusal(of: path) { return .refused(reason) }
        }
        if let conflict = place.conflict(among: paths) {
            return .refused("names both '\(conflict.file)' and '\(conflict.beneath)' beneath it")
        }
        // An entry with no file at all (an empty answer reads as one) restores nothing of a task
        // that declares outputs.
        guard !paths.isEmpty, Set(paths).count == paths.count, place.isWhole(paths),
            let below = place.taskDirectoryInProject
        else { return .missed }
        // Opened from the project's root down, through no link: a task directory that is a link
        // (`dir: sub`, `sub -> /elsewhere`) is not written through.
        guard let directory = ConfinedDirectory(place.projectRoot, below: below) else {
            return .refused("would write through the task's directory, which is a symbolic link or not a directory")
        }
        for path in paths {
            if let link = directory.link(on: path) {
                return .refused("would write '\(path)' through the symbolic link '\(link)'")
            }
        }
        // Every blob first, so that a miss changes no file.
        var fetched: [String: [UInt8]] = [:]
        for blob in entry.blobs where fetched[blob.hash] == nil && !local.hasBlob(blob) {
            // A blob fetched ahead is not asked for again, even if it was missing.
            let body: [UInt8]?
            if let reply = prefetchedBlobs[blob.hash] {
                body = accept(reply)
            } else {
                body = fetch("cas/" + blob.hash, limit: blob.size)
            }
            guard let body, CacheEntry.Blob(of: body) == blob else { return .missed }
            // Kept locally: small ones inside the entry (below), the rest as blobs.
            if body.count > CacheEntry.inlineLimit { local.storeBlob(body, hash: blob.hash) }
            fetched[blob.hash] = body
        }
        func log(_ log: CacheEntry.Log?) -> [UInt8]? {
            guard let log else { return [] }
            return log.contents ?? fetched[log.blob.hash] ?? local.readBlob(log.blob)
        }
        guard let standardOutput = log(entry.standardOutput), let standardError = log(entry.standardError) else {
            return .missed
        }
        // An output directory holds exactly the entry's files: what was in it goes first.
        for output in place.directories(holding: paths) {
            guard directory.empty(output) else { return .missed }
        }
        var written: [String] = []
        for file in entry.files {
            guard write(file, into: directory, bytes: file.contents ?? fetched[file.blob.hash]) else {
                // Nothing of a restore that failed half way stays: the task runs, and a file
                // left beneath an output directory would count as one of its outputs.
                for path in written { directory.remove(path) }
                for output in place.directories(holding: paths) { _ = directory.empty(output) }
                return .refused("could not write '\(file.path)'")
            }
            written.append(file.path)
        }
        if fromServer {
            for index in entry.files.indices where entry.files[index].contents == nil {
                if let body = fetched[entry.files[index].blob.hash], body.count <= CacheEntry.inlineLimit {
                    entry.files[index].contents = body
                }
            }
            for stream in [\CacheEntry.standardOutput, \CacheEntry.standardError] {
                if let blob = entry[keyPath: stream]?.blob, let body = fetched[blob.hash], body.count <= CacheEntry.inlineLimit {
                    entry[keyPath: stream]?.contents = body
                }
            }
            local.storeEntry(entry.encoded(inlining: true), for: key)
        }
        restoredCount += 1
        return .restored(
            Restored(standardOutput: standardOutput, standardError: standardError, files: paths, fromServer: fromServer))
    }

    /// Writes one output beside its place and renames it there, so a reader never sees a part;
    /// through no symbolic link, with no permission bit beyond 0755.
    private func write(_ file: CacheEntry.File, into directory: ConfinedDirectory, bytes: [UInt8]?) -> Bool {
        let mode = file.mode & CacheEntry.modeMask
        return directory.write(file.path) { parent, name in
            if let bytes { return BlobFile.write(bytes, at: parent, to: name, mode: mode) }
            guard let copied = BlobFile.copy(from: local.blobPath(file.blob.hash), at: parent, to: name, mode: mode) else {
                return false
            }
            guard copied == file.blob else {
                unlinkat(parent, name, 0)
                // A damaged blob must not be found again.
                unlink(local.blobPath(file.blob.hash))
                return false
            }
            return true
        }
    }

    /// Stores a task that succeeded: `files` are its outputs (relative to `directory`) with the
    /// SHA-256 they had when the run hashed them; a file changed since, or one the protocol cannot
    /// name, stores nothing. Returns whether the entry was stored.
    @discardableResult
    package func store(
        _ key: CacheKey, directory: String, files: [(path: String, hash: String)],
        standardOutput: [UInt8], standardError: [UInt8]
    ) -> Bool {
        if let problem = directoryProblem {
            reportDirectory(problem)
            return false
        }
        var entry = CacheEntry(files: [])
        for (path, hash) in files {
            guard CacheEntry.isSafeRelativePath(path) else { return false }
            let source = directory.hasSuffix("/") ? directory + path : directory + "/" + path
            var info = stat()
            guard stat(source, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
            let mode = UInt32(info.st_mode) & CacheEntry.modeMask
            if info.st_size <= CacheEntry.inlineLimit {
                // Read once: the bytes are what the record hashed, or nothing is stored.
                guard let contents = FileText.readBytes(source), Hex.sha256(contents) == hash else { return false }
                entry.files.append(CacheEntry.File(path: path, blob: .init(of: contents), mode: mode, contents: contents))
            } else {
                guard let blob = local.storeBlob(copying: source, expected: hash) else { return false }
                entry.files.append(CacheEntry.File(path: path, blob: blob, mode: mode))
            }
        }
        for (bytes, isOutput) in [(standardOutput, true), (standardError, false)] where !bytes.isEmpty {
            var log = CacheEntry.Log(blob: .init(of: bytes))
            if bytes.count <= CacheEntry.inlineLimit {
                log.contents = bytes
            } else {
                guard local.storeBlob(bytes, hash: log.blob.hash) else { return false }
            }
            if isOutput { entry.standardOutput = log } else { entry.standardError = log }
        }
        guard local.storeEntry(entry.encoded(inlining: true), for: key) else { return false }
        stored = true
        storedCount += 1
        if hasRemote, remoteWrites { uploads.append((key, entry)) }
        return true
    }

    /// Uploads what the run stored (blobs first, the entry last, so a server never names a blob it
    /// lacks) and keeps the local cache within its size. Call once, when the run ends.
    package func finish() {
        // Nothing more is fetched; the client's `shutdown` below cancels what is in flight.
        prefetch?.stop()
        if let problem = prefetch?.problem { report(problem) }
        if hasRemote, remoteProblem == nil, !uploads.isEmpty, let remote {
            remoteWasMade = true
            var batch: [(path: String, bytes: [UInt8])] = []
            var sent: Set<String> = []
            for upload in uploads {
                for (blob, contents) in upload.entry.allBlobs where sent.insert(blob.hash).inserted {
                    guard let body = contents ?? local.readBlob(blob) else { continue }
                    batch.append(("cas/" + blob.hash, body))
                }
            }
            if let problem = remote.put(batch) {
                report(problem)
            } else if let problem = remote.put(uploads.map { ("ac/" + $0.key.hex, $0.entry.encoded(inlining: false)) }) {
                report(problem)
            }
        }
        uploads = []
        // Only a client that was made is shut down (reading `remote` would make one).
        if hasRemote, remoteWasMade { remote?.shutdown() }
        if stored { CacheEviction.trimIfDue(root: local.root, limit: sizeLimit) }
    }

    /// Whether restores may ask a server, so that fetching ahead (`prefetch`) is worth it.
    package var fetchesRemotely: Bool { hasRemote }

    /// Starts fetching `key`'s entry, and the blobs it names, from the server, unless the local
    /// store has it: `restore` then takes what came or waits for it (at most a request's time
    /// limit), rather than asking the server for one after the other.
    /// `blobLimit`: the most the blobs it names may add up to for them to be fetched ahead too.
    package func prefetch(_ key: CacheKey, blobLimit: Int64 = RemotePrefetch.blobsLimit) {
        guard hasRemote, remoteProblem == nil, !local.hasEntry(key) else { return }
        if let prefetch {
            if let problem = prefetch.problem { return report(problem) }
            prefetch.start(key, blobLimit: blobLimit)
        } else if let remote {
            remoteWasMade = true
            let root = local.root
            let made = RemotePrefetch(client: remote, limit: HTTPRemoteCache.connections) { blob in
                LocalCacheStore.holds(blob, root: root)
            }
            prefetch = made
            made.start(key, blobLimit: blobLimit)
        }
    }

    /// The server's entry for `key`, as fetched ahead or asked now; `blobs`: what the fetch ahead
    /// found of the blobs it names.
    func remoteEntry(_ key: CacheKey, blobs: inout [String: RemoteReply]) -> [UInt8]? {
        guard let fetched = prefetch?.take(key) else { return fetch("ac/" + key.hex, limit: CacheEntry.sizeLimit) }
        blobs = fetched.blobs
        return accept(fetched.entry)
    }

    /// The server's body for `path`, at most `limit` bytes, or `nil` for a miss or a failure
    /// (reported once).
    func fetch(_ path: String, limit: Int64) -> [UInt8]? {
        guard hasRemote, remoteProblem == nil, let remote else { return nil }
        if let problem = prefetch?.problem {
            report(problem)
            return nil
        }
        remoteWasMade = true
        return accept(remote.get(path, limit: limit))
    }

    /// A reply's body, or `nil` for a miss or a failure (reported once).
    func accept(_ reply: RemoteReply) -> [UInt8]? {
        switch reply {
        case .found(let body): return body
        case .missing: return nil
        case .failed(let problem):
            report(problem)
            return nil
        }
    }

    func reportDirectory(_ problem: String) {
        guard !reportedDirectory else { return }
        reportedDirectory = true
        onUnusableDirectory?(problem)
    }

    func report(_ problem: String) {
        guard remoteProblem == nil else { return }
        remoteProblem = problem
        onRemoteProblem?(problem)
    }
}
