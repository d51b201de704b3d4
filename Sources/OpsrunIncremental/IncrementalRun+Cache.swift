import OpsrunCore

// What the output cache (SPEC §12, OpsrunCache) needs of the up-to-date bookkeeping: the digest of
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
    /// their SHA-256, or `nil` when one is missing or a directory: only files can be cached.
    package func succeededForCache(_ check: TaskCheck) -> (warnings: [Diagnostic], outputs: [FileDigest]?) {
        let (warnings, states) = recordSuccess(check)
        var files: [FileDigest] = []
        for state in states {
            guard let digest = state.digest, digest != .directory else { return (warnings, nil) }
            files.append(FileDigest(path: state.path, digest: digest))
        }
        return (warnings, states.isEmpty ? nil : files)
    }

    /// The task's outputs were restored from the cache instead of running it: record it as a
    /// success, whose record a later run finds up to date. No "started" record is needed first:
    /// the outputs' digests are in the record, so a half-restored task never matches it.
    package func restored(_ check: TaskCheck) -> [Diagnostic] {
        filesMayChange()
        return recordSuccess(check).warnings
    }
}
