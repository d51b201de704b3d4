// A source named without wildcards that does not exist is most often a misspelling
// (`inc/cofnig.h`): taken silently, the dependency it was meant to declare is lost. make stops
// with "No rule to make target" when it reaches such a target, before running its recipe; opsrun
// does the same at the same moment: when the task is ready (its prerequisites have run, and may
// well have made the file), the task fails without starting, its dependents are cancelled, and the
// rest of the run goes as after any failure. A path that a task of the run declares as an output
// is not an error: it will exist once that task runs (in a dry run, nothing does).

/// Tells a missing source that is a mistake from one the run will make, and words the error.
struct MissingSources {
    private let tasks: [IncrementalTaskSpec]
    private let locate: (_ task: Int, _ source: Int) -> SourceLocation?
    /// Declared outputs, made the first time a source is missing: literal ones by absolute path,
    /// globs with the directory they are relative to.
    private var declared: (paths: Set<String>, globs: [(directory: String, pattern: GlobPattern)])?

    /// `locate` gives the place in the manifest of the `source`th `sources` entry of a task.
    init(tasks: [IncrementalTaskSpec], locate: @escaping (_ task: Int, _ source: Int) -> SourceLocation?) {
        self.tasks = tasks
        self.locate = locate
    }

    /// The first of `missing` (source patterns of task `index`) that no task of the run declares
    /// as an output, with the error that says so; `nil` when each of them is declared.
    mutating func error(forTask index: Int, missing: [String]) -> (source: String, error: Diagnostic)? {
        let task = tasks[index]
        guard let text = missing.first(where: { !isDeclaredOutput(FileSystem.join(task.absoluteDirectory, $0)) })
        else { return nil }
        let location = task.sources.firstIndex(of: text).flatMap { locate(index, $0) }
        let error = Diagnostic(
            .error, at: location,
            "task '\(task.name)': source '\(text)' does not exist, and no task of this run makes it"
                + Self.suggestion(for: text, in: task.absoluteDirectory))
        return (text, error)
    }

    private mutating func isDeclaredOutput(_ path: String) -> Bool {
        if declared == nil {
            var paths: Set<String> = []
            var globs: [(directory: String, pattern: GlobPattern)] = []
            for task in tasks {
                for output in task.outputs {
                    if let literal = GlobPattern.literalPath(of: output) {
                        paths.insert(FileSystem.join(task.absoluteDirectory, literal))
                    } else {
                        globs.append((task.absoluteDirectory, GlobPattern(output)))
                    }
                }
            }
            declared = (paths, globs)
        }
        guard let declared else { return false }
        if declared.paths.contains(path) { return true }
        return declared.globs.contains { directory, pattern in
            if pattern.isAbsolute { return pattern.matches(path) }
            let prefix = directory.hasSuffix("/") ? directory : directory + "/"
            return path.hasPrefix(prefix) && pattern.matches(String(path.dropFirst(prefix.count)))
        }
    }

    /// `; did you mean 'inc/config.h'?` when a name beside the missing one is near it.
    private static func suggestion(for text: String, in directory: String) -> String {
        let slash = text.lastIndex(of: "/")
        let parent = slash.map { String(text[..<$0]) } ?? ""
        let name = slash.map { String(text[text.index(after: $0)...]) } ?? text
        let listed = FileSystem.entries(of: FileSystem.join(directory, parent.isEmpty ? "." : parent)) ?? []
        guard let near = Suggestion.nearest(to: name, in: listed.map(\.name)) else { return "" }
        return "; did you mean '\(parent.isEmpty ? near : parent + "/" + near)'?"
    }
}
