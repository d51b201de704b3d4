import OpsrunCore

/// What `--watch` looks at (docs/manual/watch.md): the sources of the tasks of a run and the manifests, as
/// directories to watch and a test of whether a changed path matters.
///
/// A path matters when a task's `sources` pattern (or a file its depfile named) matches it and no
/// task's `outputs` does: a task that writes into a watched tree must not start the next run.
public struct WatchedSources: Sendable {
    /// A pattern split at its first wildcard: the directory before it, and the rest.
    struct Rule: Sendable {
        /// Absolute, normalized.
        var base: String
        /// Matched against the path below `base`; nil: the base itself, or anything beneath it.
        var rest: GlobPattern?
    }

    private(set) var rules: [Rule] = []
    private var excluded: [Rule] = []
    /// The manifests' absolute paths: a change to one reloads it.
    public private(set) var manifests: Set<String> = []
    /// Directories to watch, with whether their subdirectories are watched too.
    public private(set) var directories: [String: Bool] = [:]

    public init() {}

    /// Whether any task gave sources to watch (else only the manifest is watched).
    public var hasSources: Bool { !rules.isEmpty }

    /// Adds a task's sources (patterns relative to `directory`, absolute), the inputs its depfile
    /// listed, and its outputs, which are never taken for a change.
    public mutating func addTask(directory: String, sources: [String], outputs: [String], depfileInputs: [String] = []) {
        for source in sources + depfileInputs {
            let rule = Self.rule(source, in: directory)
            rules.append(rule)
            // A file's directory, or the directory a pattern is below.
            let directory = rule.rest == nil && !FileText.isDirectory(rule.base) ? Directories.parentPath(of: rule.base) : rule.base
            watch(directory, recursive: directory == rule.base
                && (rule.rest == nil || rule.rest!.text.contains("/") || rule.rest!.text.contains("**")))
            // Gone (a branch switched, `rm -rf src`): its making is watched for, from above.
            if !FileText.isDirectory(directory) { watch(Self.nearestDirectory(above: directory), recursive: false) }
        }
        excluded += outputs.map { Self.rule($0, in: directory) }
    }

    public mutating func addManifest(_ path: String) {
        manifests.insert(path)
        watch(Directories.parentPath(of: path), recursive: false)
    }

    private mutating func watch(_ directory: String, recursive: Bool) {
        directories[directory] = (directories[directory] ?? false) || recursive
    }

    /// Whether a change at `path` (absolute) makes sources out of date. A directory that holds
    /// sources, or would, counts: made again after it was deleted, it is watched from the run it
    /// starts (before, the watch went blind to it until something else ran).
    public func isSource(_ path: String) -> Bool {
        if path.contains("/.opsrun/") { return false }
        let holdsSources = rules.contains { $0.base.hasPrefix(path + "/") || ($0.rest != nil && $0.base == path) }
        return (holdsSources || rules.contains { $0.matches(path) }) && !excluded.contains { $0.matches(path) }
    }

    /// The nearest existing directory above `path` (the root at worst).
    static func nearestDirectory(above path: String) -> String {
        var directory = Directories.parentPath(of: path)
        while !directory.isEmpty, directory != "/", !FileText.isDirectory(directory) {
            directory = Directories.parentPath(of: directory)
        }
        return directory.isEmpty ? "/" : directory
    }

    static func rule(_ pattern: String, in directory: String) -> Rule {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let wild = segments.firstIndex { $0.contains { "*?[\\".contains($0) } } ?? segments.count
        let literal = segments[..<wild].joined(separator: "/")
        let base = FileText.absolute(literal.isEmpty ? "." : literal, relativeTo: directory)
        let rest = wild < segments.count ? GlobPattern(segments[wild...].joined(separator: "/")) : nil
        return Rule(base: base, rest: rest)
    }
}

extension WatchedSources.Rule {
    func matches(_ path: String) -> Bool {
        if path == base { return rest == nil }
        let prefix = base == "/" ? "/" : base + "/"
        guard path.hasPrefix(prefix) else { return false }
        guard let rest else { return true }
        return rest.matches(String(path.dropFirst(prefix.count)))
    }
}
