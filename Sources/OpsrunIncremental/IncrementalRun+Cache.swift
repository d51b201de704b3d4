import OpsrunCore

// What the output cache (docs/manual/cache.md, OpsrunCache) needs of the up-to-date bookkeeping: the digest of
// everything that defines a task, the outputs a success left, and a restore recorded as a success.

extension TaskCheck {
    /// SHA-256 of the task's whole definition as checked (the record's fingerprint): commands,
    /// arguments, variables, `dir`, sources' content, prerequisites' outputs' content.
    package var definitionDigest: ContentDigest {
        Fingerprint(canonical: input.canonical).whole
    }
}

extension IncrementalRun {
    /// Records a success of the task and returns its outputs (relative to its directory) with
    /// their SHA-256: a directory's are the files beneath it. `nil` when one is missing, is
    /// neither a file nor a directory, or is a directory with no file beneath it: only files can
    /// be cached, and a restore must leave every declared output there.
    package func succeededForCache(_ check: TaskCheck) -> (warnings: [Diagnostic], outputs: [FileDigest]?) {
        let (warnings, states) = recordSuccess(check)
        var files: [FileDigest] = []
        // The directory whose files come next (`outputStates`), until one of them does.
        var emptyDirectory: String?
        var seen: Set<String> = []
        for state in states {
            guard let digest = state.digest, digest != .notAFile else { return (warnings, nil) }
            if let directory = emptyDirectory {
                guard state.path.utf8.starts(with: (directory + "/").utf8) else { return (warnings, nil) }
                emptyDirectory = nil
            }
            if digest == .directory {
                emptyDirectory = GlobPattern.literalPath(of: state.path) ?? state.path
                continue
            }
            // `outputs: [dist, dist/a.txt]` names one file twice.
            if seen.insert(state.path).inserted { files.append(FileDigest(path: state.path, digest: digest)) }
        }
        if emptyDirectory != nil || files.isEmpty { return (warnings, nil) }
        return (warnings, files)
    }

    /// The task's outputs were restored from the cache instead of running it: record it as a
    /// success, whose record a later run finds up to date. No "started" record is needed first:
    /// the outputs' digests are in the record, so a half-restored task never matches it.
    package func restored(_ check: TaskCheck) -> [Diagnostic] {
        filesMayChange()
        return recordSuccess(check).warnings
    }
}
