import OpsrunCore
import OpsrunManifest
import OpsrunGraph
/// A manifest found, read, validated and checked for cycles: everything a run, a list, a graph or a
/// plan starts from.
public struct Project: Sendable {
    public let source: ManifestSource
    /// The manifest's bytes, UTF-8 (checked, or known to be from the cache's key).
    private let bytes: [UInt8]
    public let manifest: Manifest
    public let graph: TaskGraph

    /// Whether a task has `each`: only then do `--list` and `--graph` need the environment, to
    /// expand it (`TaskInstances`).
    public var hasEach: Bool { manifest.tasks.contains { $0.each != nil } }

    /// Whether the graph a run works on may differ from the manifest's: a task has `each`, or a
    /// source may be another task's output (an edge, `FileEdges`). `--graph` then shows
    /// `TaskInstances`' graph.
    public var expandsTasks: Bool {
        hasEach || (manifest.tasks.contains { !$0.sources.isEmpty } && manifest.tasks.contains { !$0.outputs.isEmpty })
    }

    /// The manifest's text, for rendering diagnostics with their source line.
    public var text: String { String(decoding: UTF8Text.content(bytes), as: UTF8.self) }

    /// The text of the manifest and of every included one, by display name: what a diagnostic
    /// quotes. Read again for included files (only when there is something to report).
    public var sourceTexts: [String: String] {
        var texts = [source.displayName: text]
        for file in manifest.includedFiles where file.digest != nil {
            texts[file.displayName] = FileText.read(file.path)
        }
        return texts
    }

    /// The text of the file `name` (a display name, as locations carry).
    public func text(of name: String) -> String? {
        if name == source.displayName { return text }
        guard let file = manifest.includedFiles.first(where: { $0.displayName == name && $0.digest != nil }) else { return nil }
        return FileText.read(file.path)
    }

    /// Finds and loads the manifest. Throws every diagnostic found: manifest errors first, then,
    /// only for a manifest that is otherwise valid, every dependency cycle (over the whole
    /// manifest, not only the tasks asked for).
    public static func load(explicitFile: String?, workingDirectory: String) throws(ProjectError) -> Project {
        try load(from: locate(explicitFile: explicitFile, workingDirectory: workingDirectory))
    }

    /// Finds the manifest (`-f`, or `Tasksfile.yaml` here or in a parent directory).
    /// `shownAs`: `-C` as written, which the manifest's display name starts with.
    public static func locate(
        explicitFile: String?, workingDirectory: String, shownAs: String? = nil
    ) throws(ProjectError) -> ManifestSource {
        do {
            return try ManifestLocator.locate(
                explicitFile: explicitFile, workingDirectory: workingDirectory, shownAs: shownAs)
        } catch {
            throw ProjectError(diagnostics: error.diagnostics, sources: [:])
        }
    }

    /// Loads the manifest `locate` found (writing its cache, when one is due, before it returns).
    public static func load(from source: ManifestSource) throws(ProjectError) -> Project {
        try load(from: source, writingCacheOn: nil)
    }

    /// The same; the cache, when one is due, is written on a thread of `work` (whose owner joins it)
    /// rather than before returning.
    /// `storingCache: false` reads a cache there is but writes none: a manifest opsrun only looks
    /// at (one above the project run, to see whether it includes it) is not its project to write in.
    package static func load(
        from source: ManifestSource, writingCacheOn work: BackgroundWork?, storingCache: Bool = true
    ) throws(ProjectError) -> Project {
        let bytes: [UInt8]
        do {
            bytes = try source.readBytes()
        } catch {
            throw ProjectError(diagnostics: error.diagnostics, sources: [:])
        }
        // A large manifest's parsed form may be cached (ManifestCache says when it can be trusted);
        // only a manifest that loaded without a diagnostic and has no cycle is ever stored. Its
        // key holds the bytes' digest, so on a hit they are the UTF-8 they were when it was stored,
        // and no String of them is made (for 10,000 tasks, a megabyte checked and copied).
        let cache = ManifestCache(source: source, bytes: bytes)
        if let cached = cache?.load() {
            let graph = TaskGraph(manifest: cached.manifest, dependencyIDs: cached.dependencyIDs)
            return Project(source: source, bytes: bytes, manifest: cached.manifest, graph: graph)
        }
        let text: String
        do {
            text = try source.text(of: bytes)
        } catch {
            // The line quoted with the bad byte shown as U+FFFD, and the caret under it.
            let shown = String(decoding: UTF8Text.content(bytes), as: UTF8.self)
            throw ProjectError(diagnostics: error.diagnostics, sources: [source.displayName: shown])
        }
        let manifest: Manifest
        var texts: [String: String]
        do {
            (manifest, texts) = try ManifestLoader.loadWithIncludes(text: text, file: source.displayName, directory: source.directory)
        } catch {
            throw ProjectError(diagnostics: error.diagnostics, sources: error.sources)
        }
        let graph = TaskGraph(manifest: manifest)
        let cycles = CycleFinder.cycles(in: graph)
        if !cycles.isEmpty {
            texts[source.displayName] = text
            throw ProjectError(diagnostics: cycles, sources: texts)
        }
        if storingCache, let cache {
            if let work { cache.store(manifest, index: graph.index, on: work) } else { cache.store(manifest, index: graph.index) }
        }
        return Project(source: source, bytes: bytes, manifest: manifest, graph: graph)
    }

    /// The ids of the tasks a run starts from: those named, or the manifest's `default`.
    /// Throws a usage diagnostic for an unknown name, with the nearest task as a suggestion.
    public func roots(named targets: [String]) throws(ProjectError) -> [Int] {
        let names = targets.isEmpty ? manifest.defaultTasks.map { $0.value } : targets
        if names.isEmpty { throw Self.noTaskNamed(in: source.displayName, among: graph.names) }
        return try Self.ids(of: names, in: graph.index, namespaces: manifest.namespaces) { name in
            "unknown task '\(name)' (not in \(source.displayName))\(Suggestion.taskPhrase(for: name, in: graph.names + manifest.namespaces.map { $0.name }))"
        }
    }

    /// The id of each name in `index`, or every unknown one as a usage diagnostic worded by
    /// `unknown`. An included manifest's namespace (`web`) names its `default` (docs/manual/includes.md).
    static func ids(
        of names: [String], in index: [String: Int], namespaces: [NamespaceSpec] = [],
        unknown: (String) -> String
    ) throws(ProjectError) -> [Int] {
        var diagnostics: [Diagnostic] = []
        var ids: [Int] = []
        for name in names {
            if let id = index[name] {
                ids.append(id)
            } else if namespaces.contains(where: { $0.name == name }) {
                ids += defaults(ofNamespace: name, in: index, namespaces: namespaces, diagnostics: &diagnostics)
            } else {
                diagnostics.append(Diagnostic(at: nil, file: nil, unknown(name)))
            }
        }
        if !diagnostics.isEmpty { throw ProjectError(diagnostics: diagnostics, sources: [:]) }
        return ids
    }

    /// The tasks an included manifest's name stands for: its `default`, whose entries may name
    /// its own includes in turn (`default: ui`). A usage error when it has no `default`.
    static func defaults(
        ofNamespace name: String, in index: [String: Int], namespaces: [NamespaceSpec], diagnostics: inout [Diagnostic]
    ) -> [Int] {
        guard let namespace = namespaces.first(where: { $0.name == name }) else { return [] }
        if namespace.defaultTasks.isEmpty {
            let some = index.keys.filter { $0.hasPrefix(name + ":") }.sorted().prefix(10)
            diagnostics.append(Diagnostic(
                at: nil, file: nil,
                "'\(name)' is an included manifest (\(namespace.file)) with no 'default'; name one of its tasks: \(some.joined(separator: ", "))"))
        }
        return namespace.defaultTasks.flatMap { entry in
            index[entry].map { [$0] }
                ?? defaults(ofNamespace: entry, in: index, namespaces: namespaces, diagnostics: &diagnostics)
        }
    }

    /// The usage error when no task is named and the manifest has no `default`.
    static func noTaskNamed(in manifest: String, among names: [String]) -> ProjectError {
        let some = names.prefix(10).joined(separator: ", ") + (names.count > 10 ? ", …" : "")
        return ProjectError(
            diagnostics: [Diagnostic(at: nil, file: nil, "no task named and no 'default' in \(manifest); name one of: \(some) (see --list)")],
            sources: [:])
    }
}

/// Why a project could not be loaded or a selection made: diagnostics and the text to quote.
public struct ProjectError: Error, Sendable {
    public var diagnostics: [Diagnostic]
    /// Manifest text by file name, for the source line under each diagnostic.
    public var sources: [String: String]

    public init(diagnostics: [Diagnostic], sources: [String: String]) {
        self.diagnostics = diagnostics
        self.sources = sources
    }

    public var rendered: String { DiagnosticRenderer(sources: sources).render(diagnostics) }
}
