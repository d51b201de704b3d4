// Where a task's file is and what it holds: files of tasks that run in the manifest's directory are
// reached by their short relative paths from a descriptor of it (as ninja works from its
// directory), others by their whole path; a file the state names relative to the project is
// looked up by that key, without making its absolute path.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension IncrementalRun {
    /// Where `path` (relative to the task's directory, or absolute) is: its absolute path (the stat
    /// cache's key), and the path to open relative to `directory`.
    func location(of path: String, in task: IncrementalTaskSpec) -> (absolute: String, opening: String, directory: Int32) {
        let absolute = FileSystem.join(task.absoluteDirectory, path)
        if let baseDirectory, task.absoluteDirectory == baseDirectory, path.utf8.first != UInt8(ascii: "/") {
            return (absolute, path, baseDescriptor)
        }
        return (absolute, absolute, AT_FDCWD)
    }

    /// The state's key of `path` when it is simply `path` (a relative path in the project's own
    /// directory, which the state's keys are relative to); `nil` otherwise.
    private func projectKey(of path: String, in task: IncrementalTaskSpec) -> String? {
        guard keysAreRelativeToBase, task.absoluteDirectory == baseDirectory,
            let first = path.utf8.first, first != UInt8(ascii: "/")
        else { return nil }
        return path
    }

    /// The digest of `path` (relative to the task's directory, or absolute), from the stat the
    /// state prefetched when there is one.
    func digest(of path: String, in task: IncrementalTaskSpec) -> ContentDigest? {
        if let key = projectKey(of: path, in: task) {
            // The absolute path is only needed if the stat cache has no match.
            let status = store.prefetchedStatus(projectKey: key) ?? files.status(path, in: baseDescriptor)
            return hasher.digest(
                ofFileAt: FileSystem.join(task.absoluteDirectory, path), projectKey: key,
                opening: path, in: baseDescriptor, status: status)
        }
        let place = location(of: path, in: task)
        let status = store.prefetchedStatus(at: place.absolute) ?? files.status(place.opening, in: place.directory)
        return hasher.digest(ofFileAt: place.absolute, opening: place.opening, in: place.directory, status: status)
    }

    /// Each declared output as it is now; a directory (named without wildcards) is followed by
    /// every file beneath it, dot-files included, but those another task declares: it stands for
    /// them (docs/manual/up-to-date.md).
    func outputStates(of task: IncrementalTaskSpec) -> [OutputState] {
        var states: [OutputState] = []
        states.reserveCapacity(task.outputs.count)
        for text in task.outputs {
            if let path = GlobPattern.literalPath(of: text) {
                let digest = digest(of: path, in: task)
                states.append(OutputState(path: text, digest: digest))
                if digest == .directory {
                    for file in GlobPattern.everyFile(beneath: path).expand(in: task.absoluteDirectory, files: files).paths
                    where !declaredOutputs.declaresElsewhere(DeclaredOutputs.path(file, in: task.absoluteDirectory), than: task.name) {
                        states.append(OutputState(path: file, digest: self.digest(of: file, in: task)))
                    }
                }
                continue
            }
            let pattern = GlobPattern(text)
            let paths = pattern.expand(in: task.absoluteDirectory, files: files).paths
            if paths.isEmpty { states.append(OutputState(path: text, digest: nil)) }
            for path in paths { states.append(OutputState(path: path, digest: digest(of: path, in: task))) }
        }
        return states
    }

    /// The sources' files with their digests, the patterns without wildcards that name nothing,
    /// and the sources that are neither files nor directories (nothing was read from them).
    func sources(of task: IncrementalTaskSpec) -> ([FileDigest], [String], [SpecialSource]) {
        var found: [FileDigest] = []
        var missing: [String] = []
        var special: [SpecialSource] = []
        var directories: [(pattern: String, path: String)] = []
        func add(_ path: String, _ digest: ContentDigest, pattern: String) {
            if digest == .notAFile {
                special.append(SpecialSource(path: path, kind: specialKind(of: path, in: task), pattern: pattern))
            }
            found.append(FileDigest(path: path, digest: digest))
        }
        for text in task.sources {
            // A path without wildcards is one stat (and no read while the stat cache holds), not a
            // pattern to expand: the common case, and the whole of a no-op run's work per source.
            if let path = GlobPattern.literalPath(of: text) {
                switch digest(of: path, in: task) {
                case nil: missing.append(text)
                case .directory?: directories.append((text, path))
                case let digest?: add(path, digest, pattern: text)
                }
                continue
            }
            for path in GlobPattern(text).expand(in: task.absoluteDirectory, files: files).paths {
                // Gone since it was listed: as if it had not been there.
                guard let digest = digest(of: path, in: task), digest != .directory else { continue }
                add(path, digest, pattern: text)
            }
        }
        // A literal naming a directory stands for every file beneath it, dot-files included.
        for directory in directories {
            for path in GlobPattern.everyFile(beneath: directory.path).expand(in: task.absoluteDirectory, files: files).paths {
                guard let digest = digest(of: path, in: task), digest != .directory else { continue }
                add(path, digest, pattern: directory.pattern)
            }
        }
        return (TaskDefinitionInput.sortedFiles(found), missing, special)
    }

    /// What the file at `path` is, in words ("a named pipe"), for an error about it.
    func specialKind(of path: String, in task: IncrementalTaskSpec) -> String {
        let place = location(of: path, in: task)
        return files.specialKind(of: place.opening, in: place.directory) ?? "not a regular file"
    }
}
