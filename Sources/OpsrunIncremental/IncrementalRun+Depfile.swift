// A depfile (docs/manual/depfiles.md) lists what a command read, known only once it ran. The check adds the files
// the record says the depfile listed last time (hashed then, before the command starts, as any
// source is); a success reads the new depfile and records what it lists. A file the check already
// hashed keeps that digest. One it did not (a header included for the first time) is hashed now,
// after the command: if it changed since the command started (or in the clock tick before: file
// times are coarse), what the command read is unknown, so unless a prerequisite of this run left
// exactly those bytes it is recorded as untrusted (`ContentDigest.untrusted`, which no content
// matches), and the next run runs the task again, saying why, rather than believe a digest of bytes
// the command may never have seen. A listed file that is not there is recorded with a digest
// nothing matches. A listed file that is neither a file nor a directory is not read (a named pipe
// would block, /dev/zero never end): the depfile counts as unreadable. A depfile not written
// (missing, or older than the command's start), unreadable or malformed is a warning, and the
// record says so: the task runs again next time (never a false "up to date").

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OpsrunCore

extension IncrementalRun {
    /// `sources` (sorted) with the files the depfile listed last time (`inputs`, sorted) added,
    /// hashed now; one that is not there now is left out (the record has it: "source removed").
    /// Both lists are sorted, so they are merged rather than sorted again. A file that is neither
    /// a file nor a directory (nothing is read from it) is added to `special`.
    func adding(
        _ inputs: [String], to sources: [FileDigest], of task: IncrementalTaskSpec, special: inout [SpecialSource]
    ) -> [FileDigest] {
        if inputs.isEmpty { return sources }
        var files: [FileDigest] = []
        files.reserveCapacity(sources.count + inputs.count)
        var next = sources.startIndex
        for path in inputs {
            while next < sources.endIndex, TaskDefinitionInput.bytewise(sources[next].path, path) {
                files.append(sources[next])
                next += 1
            }
            // A declared source: hashed already.
            if next < sources.endIndex, sources[next].path == path { continue }
            guard let digest = sharedDigest(of: path, in: task) else { continue }
            if digest == .notAFile {
                special.append(SpecialSource(path: path, kind: specialKind(of: path, in: task), pattern: nil))
            }
            files.append(FileDigest(path: path, digest: digest))
        }
        files += sources[next...]
        return files
    }

    /// `digest(of:in:)`, remembered until a command starts: the headers a depfile lists are
    /// mostly shared (one `common.h` in every compile), so each is looked at once, not once per
    /// task that includes it (in a no-op run of 2,000 compiles of 20 headers each, 40,000 stats).
    private func sharedDigest(of path: String, in task: IncrementalTaskSpec) -> ContentDigest? {
        guard remembersDigests else { return digest(of: path, in: task) }
        let key = task.absoluteDirectory == baseDirectory && path.utf8.first != UInt8(ascii: "/")
            ? path : FileSystem.join(task.absoluteDirectory, path)
        if let known = rememberedDigests[key] { return known }
        let digest = digest(of: path, in: task)
        rememberedDigests[key] = .some(digest)
        return digest
    }

    /// The input to record after `check`'s task succeeded (its declared sources and what its
    /// depfile lists now), what the depfile said, and a warning when it said nothing usable.
    /// `startedAt`: when the task's commands started (`FileSystem.coarseRealtimeNanoseconds`).
    func readDepfile(of check: TaskCheck, startedAt: Int64) -> (TaskDefinitionInput, DepfileRecord, Diagnostic?) {
        let task = check.task
        let shown = task.depfile ?? ""
        var input = check.input
        input.sources = check.declaredSources
        let path = FileSystem.join(task.absoluteDirectory, shown)
        // A depfile last changed before the command started is an earlier run's (the command no
        // longer writes it): what it lists says nothing of what this run read.
        if let status = files.status(path),
            max(status.modificationNanoseconds, status.changeNanoseconds) < startedAt
        {
            return (input, DepfileRecord(inputs: [], problem: .missing), Diagnostic(
                .warning, at: nil,
                "task '\(task.name)' succeeded without writing its depfile '\(shown)' (the file there is older than the task's start); it runs again next time"))
        }
        let inputs: [String]
        switch Self.depfileInputs(at: path, files: files) {
        case .success(let listed):
            inputs = listed
        case .failure(.missing):
            return (input, DepfileRecord(inputs: [], problem: .missing), Diagnostic(
                .warning, at: nil, "task '\(task.name)' succeeded without writing its depfile '\(shown)'; it runs again next time"))
        case .failure(.unreadable(let reason)):
            return (input, DepfileRecord(inputs: [], problem: .malformed), Diagnostic(
                .warning, at: nil, "task '\(task.name)': depfile '\(shown)' \(reason); it runs again next time"))
        }
        // The digests taken before the command ran, by path.
        var before: [String: ContentDigest] = [:]
        before.reserveCapacity(check.input.sources.count)
        for file in check.input.sources { before[file.path] = file.digest }
        // Prerequisites' outputs by absolute path, hashed when they ended: made only if needed.
        var written: [String: ContentDigest]?
        var files = check.declaredSources
        let declared = Set(check.declaredSources.lazy.map { $0.path })
        for path in inputs where !declared.contains(path) {
            if let digest = before[path] {
                files.append(FileDigest(path: path, digest: digest))
                continue
            }
            let place = location(of: path, in: task)
            let read = hasher.digestAndStatus(ofFileAt: place.absolute, opening: place.opening, in: place.directory)
            guard let read else {
                files.append(FileDigest(path: path, digest: hasher.unmatchableDigest(place.absolute)))
                continue
            }
            // Not read (a pipe would block, a device never end): what the command read from it is
            // unknown, so the task runs again next time, as after a depfile that cannot be read.
            if read.digest == .notAFile {
                return (input, DepfileRecord(inputs: [], problem: .malformed), Diagnostic(
                    .warning, at: nil,
                    "task '\(task.name)': its depfile '\(shown)' lists '\(TerminalText.escapingControlCharacters(path))', "
                        + "which is \(specialKind(of: path, in: task)), not a file; nothing is read from it, "
                        + "and the task runs again next time"))
            }
            // Changed after the command started, or in the clock tick before (file times are
            // coarse): unless a prerequisite left these very bytes (a generated header, written
            // just before), what the command read is unknown. A directory counts by existence.
            var trusted = read.digest == .directory
                || max(read.status.modificationNanoseconds, read.status.changeNanoseconds) < startedAt
            if !trusted {
                if written == nil { written = prerequisiteOutputs(of: check) }
                trusted = written?[place.absolute] == read.digest
            }
            files.append(FileDigest(path: path, digest: trusted ? read.digest : .untrusted))
        }
        input.sources = TaskDefinitionInput.sortedFiles(files)
        return (input, DepfileRecord(inputs: inputs.sorted(by: TaskDefinitionInput.bytewise)), nil)
    }

    /// The outputs `check`'s prerequisites left in this run (hashed when each ended, before the
    /// task started), by absolute path.
    private func prerequisiteOutputs(of check: TaskCheck) -> [String: ContentDigest] {
        var result: [String: ContentDigest] = [:]
        for prerequisite in check.input.prerequisiteOutputs {
            guard let directory = checkedDirectory(of: prerequisite.task) else { continue }
            for file in prerequisite.outputs { result[FileSystem.join(directory, file.path)] = file.digest }
        }
        return result
    }

    /// Why a depfile gave no inputs.
    enum DepfileProblem: Error {
        case missing
        /// Unreadable or malformed, in words ("is malformed: expected ':' in depfile").
        case unreadable(String)
    }

    /// The files the depfile at `path` lists, each once, `./` prefixes dropped.
    static func depfileInputs(at path: String, files: any FileAccess = DiskFiles()) -> Result<[String], DepfileProblem> {
        // Read only a file: a named pipe would block the run.
        if let kind = files.specialKind(of: path, in: AT_FDCWD) { return .failure(.unreadable("is \(kind), not a file")) }
        guard let bytes = files.contents(of: path) else {
            if files.status(path) == nil { return .failure(.missing) }
            return .failure(.unreadable("cannot be read (\(FileSystem.lastErrorText()))"))
        }
        do {
            var seen: Set<String> = []
            return .success(try DepfileParser.inputs(of: bytes).map(withoutDotSlash).filter { seen.insert($0).inserted })
        } catch {
            return .failure(.unreadable("is malformed: \(error.reason)"))
        }
    }

    /// `./a/b` → `a/b`: the same file as a source written `a/b`.
    private static func withoutDotSlash(_ path: String) -> String {
        var path = Substring(path)
        while path.utf8.starts(with: "./".utf8), path.utf8.count > 2 { path = path.dropFirst(2) }
        return String(path)
    }
}

extension IncrementalRun {
    /// The files the depfile at `path` lists (for `--watch`); empty when it is missing or unreadable.
    public static func inputs(ofDepfile path: String) -> [String] {
        (try? depfileInputs(at: path).get()) ?? []
    }
}
