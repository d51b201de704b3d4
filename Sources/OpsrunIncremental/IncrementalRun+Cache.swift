import OpsrunCore

// What the output cache (docs/manual/cache.md, OpsrunCache) needs of the up-to-date bookkeeping: the digest of
// everything that defines a task, the outputs a success left, and a restore recorded as a success.
// A task with a depfile is cached as ccache's direct mode caches (docs/cache.md, "Depfile tasks"):
// under a key without what its depfile lists (`declaredDefinitionDigest`), with the inputs the
// depfile listed (`CacheableSuccess.discovered`) kept beside its outputs; a restore takes a stored
// run whose inputs all have that content now (`hasContent`) and records them as its depfile's.

extension TaskCheck {
    /// SHA-256 of the task's whole definition as checked (the record's fingerprint): commands,
    /// arguments, variables, `dir`, sources' content, prerequisites' outputs' content.
    package var definitionDigest: ContentDigest {
        Fingerprint(canonical: input.canonical).whole
    }

    /// The same without the files its depfile listed last time: what the task's manifest entry and
    /// its prerequisites say it reads (for a task without a depfile, `definitionDigest`). Paths in
    /// it are relative to the task's directory, itself relative to the root manifest's.
    package var declaredDefinitionDigest: ContentDigest {
        guard depfileInputs != nil || input.sources.count != declaredSources.count else { return definitionDigest }
        var declared = input
        declared.sources = declaredSources
        return Fingerprint(canonical: declared.canonical).whole
    }
}

/// A success as the output cache stores it.
package struct CacheableSuccess {
    package var warnings: [Diagnostic]
    /// The outputs (relative to the task's directory) with their SHA-256: a directory's are the
    /// files beneath it. `nil` when one is missing, is neither a file nor a directory, or is a
    /// directory with no file beneath it: only files can be cached, and a restore must leave every
    /// declared output there.
    package var outputs: [FileDigest]?
    /// For a task with a depfile, what it listed, each file with its content, sorted by path: `nil`
    /// when that cannot be kept (the depfile was missing or malformed, a listed file is missing, not a
    /// regular file, or changed while the task ran), and the task is then not stored. A path in the
    /// project is relative to the task's directory, so that another clone reads its own file.
    package var discovered: [FileDigest]?
}

extension IncrementalRun {
    /// The largest file a candidate's inputs may name: a header or source, never an image.
    static let largestCandidateInput: Int64 = 64 << 20

    /// Records a success of the task and returns what the cache stores of it.
    package func succeededForCache(_ check: TaskCheck) -> CacheableSuccess {
        let (warnings, states, record) = recordSuccess(check)
        var result = CacheableSuccess(warnings: warnings, outputs: nil, discovered: nil)
        // A source changed while it ran: the outputs are of unknown inputs, never stored under
        // the key of the bytes it had before (`distrustingChanges`).
        guard let record, !record.sources.contains(where: { $0.digest == .untrusted }) else { return result }
        if check.task.depfile != nil {
            guard let discovered = discoveredInputs(of: record, in: check.task) else { return result }
            result.discovered = discovered
        }
        var files: [FileDigest] = []
        // The directory whose files come next (`outputStates`), until one of them does.
        var emptyDirectory: String?
        var seen: Set<String> = []
        for state in states {
            guard let digest = state.digest, digest != .notAFile else { return result }
            if let directory = emptyDirectory {
                guard state.path.utf8.starts(with: (directory + "/").utf8) else { return result }
                emptyDirectory = nil
            }
            if digest == .directory {
                emptyDirectory = GlobPattern.literalPath(of: state.path) ?? state.path
                continue
            }
            // A symbolic link would be stored as a copy of its target, which need not be any
            // input of the task (`ln -s /usr/lib/libz.so build/`): another clone would get this
            // machine's bytes (adversarial probe). Only regular files are stored.
            let place = location(of: state.path, in: check.task)
            guard self.files.status(place.absolute, followingLinks: false)?.kind == .regular else { return result }
            // `outputs: [dist, dist/a.txt]` names one file twice.
            if seen.insert(state.path).inserted { files.append(FileDigest(path: state.path, digest: digest)) }
        }
        if emptyDirectory != nil || files.isEmpty { return result }
        result.outputs = files
        return result
    }

    /// The files `record`'s depfile listed with the digests recorded for them, or `nil` when one
    /// has no content to match (missing, unreadable, not a file, untrusted) or the depfile told
    /// nothing usable.
    private func discoveredInputs(of record: TaskRecord, in task: IncrementalTaskSpec) -> [FileDigest]? {
        guard let depfile = record.depfile, depfile.problem == nil, !depfile.inputs.isEmpty else { return nil }
        var byPath: [String: ContentDigest] = [:]
        for source in record.sources { byPath[source.path] = source.digest }
        var inputs: [FileDigest] = []
        for path in depfile.inputs {
            guard let digest = byPath[path], digest != .untrusted, digest != .notAFile, digest != .directory else { return nil }
            // A missing file has a digest no content has: no restore would match it.
            let place = location(of: path, in: task)
            guard files.status(place.opening, in: place.directory)?.kind == .regular else { return nil }
            inputs.append(FileDigest(path: portable(path, in: task), digest: digest))
        }
        let sorted = TaskDefinitionInput.sortedFiles(inputs)
        // The same file listed as an absolute path and a relative one must agree.
        return sorted.count == inputs.count || Set(inputs).count == sorted.count ? sorted : nil
    }

    /// `path` (as a depfile lists it) relative to the task's directory when it is an absolute path
    /// inside the project, so that a clone elsewhere reads its own copy; otherwise as it is.
    private func portable(_ path: String, in task: IncrementalTaskSpec) -> String {
        guard path.utf8.first == UInt8(ascii: "/"), let base = baseDirectory, base.utf8.last != UInt8(ascii: "/"),
            path.utf8.starts(with: (base + "/").utf8)
        else { return path }
        let inProject = String(path.dropFirst(base.count + 1))
        let directory = task.absoluteDirectory
        if directory == base { return inProject }
        guard directory.utf8.starts(with: (base + "/").utf8) else { return path }
        let below = directory.dropFirst(base.count + 1).split(separator: "/")
        guard below.allSatisfy({ $0 != "." && $0 != ".." }) else { return path }
        return String(repeating: "../", count: below.count) + inProject
    }

    /// Whether each of `inputs` (paths relative to the task's directory, or absolute) is a regular
    /// file with that content now. Nothing but a regular file is read (a named pipe would block, a
    /// device never end); a file is read once per run at most (the stat cache).
    package func hasContent(_ inputs: [FileDigest], for check: TaskCheck) -> Bool {
        for input in inputs {
            if hasher.wasStopped { return false }
            let place = location(of: input.path, in: check.task)
            // What a compile reads is small; a list naming a large file would have it read on
            // every lookup that finds no match (adversarial probe).
            // The one stat is handed to the hasher: a file swapped since for something other than
            // a regular file is caught when it is opened, and matches nothing.
            guard let status = files.status(place.opening, in: place.directory), status.kind == .regular,
                status.size <= Self.largestCandidateInput,
                hasher.digest(ofFileAt: place.absolute, opening: place.opening, in: place.directory, status: status)
                    == input.digest
            else { return false }
        }
        return true
    }

    /// The task's outputs were restored from the cache instead of running it: record it as a
    /// success, whose record a later run finds up to date. No "started" record is needed first:
    /// the outputs' digests are in the record, so a half-restored task never matches it.
    /// `discovered`: for a task with a depfile, the inputs of the candidate restored (checked by
    /// `hasContent` just before), recorded as what its depfile listed.
    package func restored(_ check: TaskCheck, discovered: [FileDigest]? = nil) -> [Diagnostic] {
        filesMayChange()
        return recordSuccess(check, discovered: discovered).warnings
    }
}
