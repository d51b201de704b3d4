import OpsrunCore
/// The paths the tasks of a run declare as `outputs`, literal ones and globs: what the run will
/// make, so a source missing now may be one of them, or lie beneath one (an output directory).
public struct DeclaredOutputs {
    /// Literal outputs by absolute path.
    private var paths: Set<String> = []
    /// Glob outputs with the directory they are relative to.
    private var globs: [(directory: String, pattern: GlobPattern)] = []

    public init(of tasks: [IncrementalTaskSpec]) {
        for task in tasks {
            for output in task.outputs {
                if let literal = GlobPattern.literalPath(of: output) {
                    paths.insert(Self.path(literal, in: task.absoluteDirectory))
                } else {
                    globs.append((task.absoluteDirectory, GlobPattern(output)))
                }
            }
        }
    }

    /// `relative` in `directory`, with `..` taken lexically: a sub-project's `../gen/types.txt` is
    /// the root's `gen/types.txt` (SPEC §10).
    static func path(_ relative: String, in directory: String) -> String {
        let joined = FileSystem.join(directory, relative)
        return joined.contains("/..") || joined.contains("/./") ? FileText.absolute(joined, relativeTo: "/") : joined
    }

    /// Whether `source` (a path without wildcards, as `task` names it) is declared as an output.
    public func contains(source: String, of task: IncrementalTaskSpec) -> Bool {
        let path = Self.path(GlobPattern.literalPath(of: source) ?? source, in: task.absoluteDirectory)
        if paths.contains(path) { return true }
        // Beneath a literal output, which may be a directory: it stands for every file beneath it.
        var parent = Substring(path)
        while let slash = parent.lastIndex(of: "/"), slash > parent.startIndex {
            parent = parent[..<slash]
            if paths.contains(String(parent)) { return true }
        }
        return globs.contains { directory, pattern in
            if pattern.isAbsolute { return pattern.matches(path) }
            let prefix = directory.hasSuffix("/") ? directory : directory + "/"
            return path.hasPrefix(prefix) && pattern.matches(String(path.dropFirst(prefix.count)))
        }
    }
}

extension GlobPattern {
    /// For a path that names nothing (relative to `directory`, or absolute), the path of a name
    /// beside it that is near enough to be what was meant: `inc/config.h` for `inc/cofnig.h`.
    public static func nearestExisting(to path: String, in directory: String) -> String? {
        let slash = path.lastIndex(of: "/")
        let parent = slash.map { String(path[..<$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let listed = FileSystem.entries(of: FileSystem.join(directory, parent.isEmpty ? "." : parent)) ?? []
        guard let near = Suggestion.nearest(to: name, in: listed.map { $0.name }) else { return nil }
        return slash == nil ? near : parent + "/" + near
    }
}
