import OpsrunCore
import OpsrunIncremental

// Depfile tasks in the cache (docs/cache.md, "Depfile tasks"), as ccache's direct mode: a task's key
// leaves out what its depfile will list, which is known only after it ran. Under that key (`ac/`)
// the cache keeps an entry whose one output file (`DepfileCandidates.entryPath`, never written) is a
// blob listing, for up to 8 stored runs, the inputs its depfile listed with their content; each
// run's outputs are an ordinary entry under `CacheKey(key, discovered: inputs)`, restored with every
// check of `restore(_:into:)`. So a server needs nothing but Bazel's HTTP cache protocol.

extension OutputCache {
    /// Restores a depfile task whose key without discovered inputs is `key`: the first candidate
    /// (the local store's, then the server's) whose inputs all have the recorded content now
    /// (`matches`, which must read only regular files) and whose entry the cache has. Returns the
    /// outcome and the candidate's inputs (for the state to record).
    package func restore(
        candidatesOf key: CacheKey, into place: OutputPlace, matching matches: ([FileDigest]) -> Bool
    ) -> (outcome: Outcome, inputs: [FileDigest]) {
        if let problem = directoryProblem {
            reportDirectory(problem)
            return (.missed, [])
        }
        var tried: [[FileDigest]] = []
        func firstMatch(in list: DepfileCandidates) -> (outcome: Outcome, inputs: [FileDigest])? {
            for inputs in list.candidates where !tried.contains(inputs) {
                tried.append(inputs)
                guard matches(inputs) else { continue }
                let outcome = restore(CacheKey(key, discovered: inputs), into: place)
                if case .missed = outcome { continue }
                return (outcome, inputs)
            }
            return nil
        }
        let local = localCandidates(key)
        if let local, let found = firstMatch(in: local) { return found }
        guard let remote = remoteCandidates(key) else { return (.missed, []) }
        serverCandidates[key] = remote
        guard let found = firstMatch(in: remote) else { return (.missed, []) }
        // Found locally from now on (not uploaded: the server has it).
        if case .restored = found.outcome {
            var kept = local ?? DepfileCandidates()
            kept.add(found.inputs)
            storeCandidates(kept, for: key, uploading: false)
        }
        return found
    }

    /// Stores a depfile task that succeeded (see `store(_:directory:files:standardOutput:standardError:)`)
    /// under its candidate for `inputs`, and adds the candidate to the list under `key` (the local
    /// one, and the server's if a restore asked it this run). Returns whether it was stored.
    @discardableResult
    package func store(
        candidateOf key: CacheKey, inputs: [FileDigest], directory: String, files: [(path: String, hash: String)],
        standardOutput: [UInt8], standardError: [UInt8]
    ) -> Bool {
        guard DepfileCandidates.isValid(inputs),
            store(
                CacheKey(key, discovered: inputs), directory: directory, files: files, standardOutput: standardOutput,
                standardError: standardError)
        else { return false }
        var list = localCandidates(key) ?? DepfileCandidates()
        // The server's list is merged only to be uploaded again whole: a read-only run keeps
        // nothing of a list it cannot vouch for (adversarial probe).
        if remoteWrites, let server = serverCandidates[key] { list = list.merged(with: server) }
        list.add(inputs)
        return storeCandidates(list, for: key, uploading: true)
    }

    /// Writes `list` under `key` locally, and queues it for the server when `uploading`.
    @discardableResult
    private func storeCandidates(_ list: DepfileCandidates, for key: CacheKey, uploading: Bool) -> Bool {
        let bytes = list.encoded()
        var file = CacheEntry.File(path: DepfileCandidates.entryPath, blob: .init(of: bytes), mode: 0o644)
        if bytes.count <= CacheEntry.inlineLimit {
            file.contents = bytes
        } else {
            guard local.storeBlob(bytes, hash: file.blob.hash) else { return false }
        }
        let entry = CacheEntry(files: [file])
        guard local.storeEntry(entry.encoded(inlining: true), for: key) else { return false }
        stored = true
        if uploading, hasRemote, remoteWrites { uploads.append((key, entry)) }
        return true
    }

    /// The local store's list under `key`, if it has one that checks out.
    private func localCandidates(_ key: CacheKey) -> DepfileCandidates? {
        guard let bytes = local.entry(key), let blob = Self.candidatesBlob(in: bytes) else { return nil }
        return (blob.contents ?? local.readBlob(blob.blob)).flatMap(DepfileCandidates.init(decoding:))
    }

    /// The server's list under `key` (fetched ahead, or asked now), if it has one that checks out.
    /// Its blob is fetched only when the entry says it is no larger than a list may be, and only
    /// up to that size.
    private func remoteCandidates(_ key: CacheKey) -> DepfileCandidates? {
        guard hasRemote, remoteProblem == nil else { return nil }
        var prefetched: [String: RemoteReply] = [:]
        guard let bytes = remoteEntry(key, blobs: &prefetched), let file = Self.candidatesBlob(in: bytes) else { return nil }
        let body: [UInt8]?
        if let contents = file.contents {
            body = contents
        } else if let reply = prefetched[file.blob.hash] {
            body = accept(reply)
        } else {
            body = fetch("cas/" + file.blob.hash, limit: file.blob.size)
        }
        guard let body, CacheEntry.Blob(of: body) == file.blob else { return nil }
        return DepfileCandidates(decoding: body)
    }

    /// The one file of an entry that names a candidate list: nothing else in it, and no larger
    /// than a list may be.
    private static func candidatesBlob(in bytes: [UInt8]) -> CacheEntry.File? {
        guard let entry = CacheEntry(decoding: bytes), entry.files.count == 1, entry.standardOutput == nil,
            entry.standardError == nil, entry.files[0].path == DepfileCandidates.entryPath,
            entry.files[0].blob.size <= DepfileCandidates.sizeLimit
        else { return nil }
        return entry.files[0]
    }
}
