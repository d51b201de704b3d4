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
    /// (The prefetch in `init` makes the same choice.)
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

    /// The digest of `path` (relative to the task's directory, or absolute).
    func digest(of path: String, in task: IncrementalTaskSpec) -> ContentDigest? {
        var known: PrefetchedStatuses?
        return digest(of: path, in: task, known: &known)
    }

    /// The same, with the stat taken from the front of `known` when there is one.
    func digest(of path: String, in task: IncrementalTaskSpec, known: inout PrefetchedStatuses?) -> ContentDigest? {
        if let status = known?.popFirst() {
            // The stat is known: the absolute path is only needed if the stat cache has no match.
            if let key = projectKey(of: path, in: task) {
                return hasher.digest(
                    ofFileAt: FileSystem.join(task.absoluteDirectory, path), projectKey: key,
                    opening: path, in: baseDescriptor, status: status)
            }
            let place = location(of: path, in: task)
            return hasher.digest(ofFileAt: place.absolute, opening: place.opening, in: place.directory, status: status)
        }
        let place = location(of: path, in: task)
        return hasher.digest(ofFileAt: place.absolute, opening: place.opening, in: place.directory)
    }
}
