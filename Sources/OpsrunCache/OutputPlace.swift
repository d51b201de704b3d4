import OpsrunIncremental

/// Where a restore may write (docs/manual/cache.md, "What a cache entry may do"): the task's
/// declared outputs (a literal path, a path beneath a literal one, which may be a directory, or a
/// path an output glob matches), beneath the task's directory, inside the project. Whatever an
/// entry names is checked against it before anything is written.
package struct OutputPlace: Sendable {
    /// The root manifest's directory.
    package var projectRoot: String
    package var taskDirectory: String
    /// The outputs as the task declares them, relative to its directory.
    package var outputs: [String]

    package init(projectRoot: String, taskDirectory: String, outputs: [String]) {
        self.projectRoot = projectRoot
        self.taskDirectory = taskDirectory
        self.outputs = outputs
    }

    /// The outputs written without wildcards, normalized (`./out/` is `out`).
    var literalOutputs: [String] { outputs.compactMap { GlobPattern.literalPath(of: $0) } }

    /// Why the entry may not write `path` (as the warning goes on: "names 'x', which is not one of
    /// its outputs"), or `nil` when it may.
    package func refusal(of path: String) -> String? {
        let shown = "names '\(path)', "
        if path.hasPrefix("/") { return shown + "which is not a relative path" }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) || path.utf8.contains(0) {
            return shown + (leavesProject(parts) ? "which is outside the project" : "which is not a plain relative path")
        }
        if taskDirectoryInProject == nil { return shown + "which is outside the project" }
        // What no output holds (a directory output's files never include them): a hook or state.
        if parts.contains(where: { $0 == ".git" || $0 == ".opsrun" }) { return shown + "which is not one of its outputs" }
        let literals = literalOutputs
        if literals.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) { return nil }
        if outputs.contains(where: { GlobPattern.literalPath(of: $0) == nil && GlobPattern($0).matches(path) }) { return nil }
        return shown + "which is not one of its outputs"
    }

    /// Whether every literal output is in the entry (itself, or files beneath it when a directory).
    func isWhole(_ paths: [String]) -> Bool {
        literalOutputs.allSatisfy { output in paths.contains { $0 == output || $0.hasPrefix(output + "/") } }
    }

    /// The literal outputs that the entry holds files beneath: directories, emptied before a
    /// restore so that they hold exactly the entry's files.
    func directories(holding paths: [String]) -> [String] {
        literalOutputs.filter { output in !output.isEmpty && paths.contains { $0.hasPrefix(output + "/") } }
    }

    /// Two paths of which one is a directory holding the other (`out/a` and `out/a/b`): an entry
    /// that names both cannot be written whole, and is refused before anything is.
    func conflict(among paths: [String]) -> (file: String, beneath: String)? {
        let names = Set(paths)
        for path in paths {
            var parent = Substring(path)
            while let slash = parent.lastIndex(of: "/") {
                parent = parent[..<slash]
                if names.contains(String(parent)) { return (String(parent), path) }
            }
        }
        return nil
    }

    /// The task's directory's components below the project's root; `nil` when it is not inside.
    var taskDirectoryInProject: [Substring]? {
        let root = projectRoot.hasSuffix("/") ? String(projectRoot.dropLast()) : projectRoot
        if taskDirectory == root || taskDirectory == root + "/" { return [] }
        guard taskDirectory.hasPrefix(root + "/") else { return nil }
        var depth: [Substring] = []
        for part in taskDirectory.dropFirst(root.count + 1).split(separator: "/") where part != "." {
            if part == ".." {
                guard !depth.isEmpty else { return nil }
                depth.removeLast()
            } else {
                depth.append(part)
            }
        }
        return depth
    }

    /// Whether `parts`, read from the task's directory with `..` taken literally, reach above the
    /// project's root.
    private func leavesProject(_ parts: [Substring]) -> Bool {
        guard var depth = taskDirectoryInProject?.count else { return true }
        for part in parts where !part.isEmpty && part != "." {
            depth += part == ".." ? -1 : 1
            if depth < 0 { return true }
        }
        return false
    }
}
