import OpsrunCore
/// The paths the tasks of a run declare as `outputs`, literal ones and globs: what the run will
/// make, so a source missing now may be one of them, or lie beneath one (an output directory).
public struct DeclaredOutputs {
    /// Literal outputs by absolute path, with the task that declares each (the first, for a path
    /// two declare).
    private var paths: [String: String] = [:]
    /// Glob outputs with the directory they are relative to and their task.
    private var globs: [(directory: String, pattern: GlobPattern, task: String)] = []

    public init(of tasks: [IncrementalTaskSpec]) {
        for task in tasks {
            for output in task.outputs {
                if let literal = GlobPattern.literalPath(of: output) {
                    let path = Self.path(literal, in: task.absoluteDirectory)
                    if paths[path] == nil { paths[path] = task.name }
                } else {
                    globs.append((task.absoluteDirectory, GlobPattern(output), task.name))
                }
            }
        }
    }

    /// Whether a task other than `task` declares the file at `absolutePath` (beneath `task`'s
    /// output directory): itself, a directory above it but below `task`'s, or a glob matching it.
    /// Such a file is that task's output, not one of the files `task`'s directory stands for:
    /// else `mkdir: { outputs: [build] }` would change with every compile writing into `build`.
    func declaresElsewhere(_ absolutePath: String, than task: String) -> Bool {
        var parent = Substring(absolutePath)
        while true {
            if let owner = paths[String(parent)] {
                // Reached the task's own directory (or its own literal output): nobody else's.
                return owner != task
            }
            guard let slash = parent.lastIndex(of: "/"), slash > parent.startIndex else { break }
            parent = parent[..<slash]
        }
        return globs.contains { directory, pattern, owner in
            guard owner != task else { return false }
            if pattern.isAbsolute { return pattern.matches(absolutePath) }
            let prefix = directory.hasSuffix("/") ? directory : directory + "/"
            return absolutePath.hasPrefix(prefix) && pattern.matches(String(absolutePath.dropFirst(prefix.count)))
        }
    }

    /// `relative` in `directory`, with `..` taken lexically: a sub-project's `../gen/types.txt` is
    /// the root's `gen/types.txt` (docs/manual/includes.md).
    static func path(_ relative: String, in directory: String) -> String {
        let joined = FileSystem.join(directory, relative)
        return joined.contains("/..") || joined.contains("/./") ? FileText.absolute(joined, relativeTo: "/") : joined
    }

    /// Whether `source` (a path without wildcards, as `task` names it) is declared as an output.
    public func contains(source: String, of task: IncrementalTaskSpec) -> Bool {
        let path = Self.path(GlobPattern.literalPath(of: source) ?? source, in: task.absoluteDirectory)
        if paths[path] != nil { return true }
        // Beneath a literal output, which may be a directory: it stands for every file beneath it.
        var parent = Substring(path)
        while let slash = parent.lastIndex(of: "/"), slash > parent.startIndex {
            parent = parent[..<slash]
            if paths[String(parent)] != nil { return true }
        }
        return globs.contains { directory, pattern, _ in
            if pattern.isAbsolute { return pattern.matches(path) }
            let prefix = directory.hasSuffix("/") ? directory : directory + "/"
            return path.hasPrefix(prefix) && pattern.matches(String(path.dropFirst(prefix.count)))
        }
    }
}

extension GlobPattern {
    /// For a path that names nothing (relative to `directory`, or absolute), the path of a name
    /// beside it that is near enough to be what was meant: `inc/config.h` for `inc/cofnig.h`.
    public static func nearestExisting(
        to path: String, in directory: String, files: any FileAccess = DiskFiles()
    ) -> String? {
        let slash = path.lastIndex(of: "/")
        let parent = slash.map { String(path[..<$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let listed = files.entries(of: FileSystem.join(directory, parent.isEmpty ? "." : parent)) ?? []
        guard let near = Suggestion.nearest(to: name, in: listed.map { $0.name }) else { return nil }
        return slash == nil ? near : parent + "/" + near
    }
}
