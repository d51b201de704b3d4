import OpsrunCore
// `includes:` (docs/manual/includes.md): the included manifests are read here, depth first, and their tasks
// merged into the root's under their namespace, so the graph and everything after it see one
// manifest of plain tasks:
//   - `build` in `web` becomes `web:build`; in its `deps`, `compile` means `web:compile`,
//     `ui:build` its own include's `web:ui:build`, and `:codegen` the root's `codegen`;
//   - each included task carries its manifest's directory (`baseDirectory`, the base of its `dir`
//     and its default working directory) and its manifest's `env` (and its including manifests'),
//     put before its own `env`, on top of the root's;
//   - its queues are `web:net`; its `dotenv` files are kept with its namespace, read from its
//     directory for its own tasks (and its includes' tasks), on top of the root's `env`.
// Names that reach outside a file are checked once every file is read. A `:NAME` that names no
// task of the top manifest is not an error here: that manifest may be a sub-project run on its
// own (`opsrun -C web`), which still runs the tasks that do not need it (`rootReferences`).

/// Reads the manifests a manifest includes and merges them into it.
struct IncludeLoader {
    private var result: Manifest
    private var diagnostics: [Diagnostic]
    private var texts: [String: String]
    /// Names to check once every task is known.
    private var pending: [PendingName] = []
    /// Namespaces (`web:`) whose file could not be read: names in them are not reported again.
    private var unreadable: [String] = []
    /// The root manifest's directory as shown in messages (`nil`: where opsrun started).
    private let shownBase: String?

    /// A file being read and the files that include it, to find include cycles.
    private struct Link {
        /// Absolute, symbolic links resolved.
        var realPath: String
        var display: String
        /// The `includes` entry of the previous link that includes this one.
        var via: (namespace: String, location: SourceLocation)?
    }

    /// Where a file's tasks go.
    private struct Context {
        var display: String
        /// Its directory, absolute.
        var directory: String
        /// Its directory relative to the root's; `nil` for the root.
        var relativeDirectory: String?
        /// `web:` for `web`'s tasks; empty for the root.
        var prefix: String
        /// The `env` of the manifests from the root's child down to this one.
        var environment: [EnvironmentEntry]
        var chain: [Link]
    }

    /// A name written in one file that names something of another.
    private struct PendingName {
        enum Place { case dep(task: Int, entry: Int), queue(task: Int), defaultTask }
        var place: Place
        var written: Located<String>
        /// The prefix of the file it is written in.
        var prefix: String
        /// Whose name it is, for the message: "deps of 'web:build'".
        var owner: String
    }

    static func load(
        root: ManifestFile, text: String, file: String, directory: String
    ) throws(ManifestLoadError) -> (manifest: Manifest, includedTexts: [String: String]) {
        let slash = file.lastIndex(of: "/")
        let shownBase = slash.map { $0 == file.startIndex ? "/" : String(file[..<$0]) }
        var loader = IncludeLoader(result: root.manifest, diagnostics: root.diagnostics, texts: [file: text], shownBase: shownBase)
        let name = slash.map { String(file[file.index(after: $0)...]) } ?? file
        let rootPath = FileText.realPath(directory + "/" + name) ?? directory + "/" + name
        let context = Context(
            display: file, directory: directory, relativeDirectory: nil, prefix: "", environment: [],
            chain: [Link(realPath: rootPath, display: file, via: nil)])
        let namespaces = root.includes.map { $0.namespace }
        for id in loader.result.tasks.indices {
            loader.noteOutsideNames(of: loader.result.tasks[id], id: id, prefix: "", namespaces: namespaces)
        }
        for name in loader.result.defaultTasks
        where TaskSpecReader.isOutsideReference(name.value, includeNamespaces: namespaces) || namespaces.contains(name.value) {
            loader.pending.append(PendingName(place: .defaultTask, written: name, prefix: "", owner: ""))
        }
        loader.include(root.includes, of: context)
        loader.checkNames()
        var texts = loader.texts
        if !loader.diagnostics.isEmpty {
            var checker = ManifestChecker()
            checker.diagnostics = loader.diagnostics
            throw ManifestLoadError(diagnostics: checker.sortedDiagnostics, sources: texts)
        }
        texts[file] = nil
        return (loader.result, texts)
    }

    private init(result: Manifest, diagnostics: [Diagnostic], texts: [String: String], shownBase: String?) {
        self.result = result
        self.diagnostics = diagnostics
        self.texts = texts
        self.shownBase = shownBase
    }

    /// Reads each entry's manifest and merges it, then its own includes.
    private mutating func include(_ entries: [IncludeEntry], of context: Context) {
        for entry in entries {
            let written = Self.tidied(entry.path.value)
            let relative = written.hasPrefix("/") ? written : context.relativeDirectory.map { $0 + "/" + written } ?? written
            let absolute = written.hasPrefix("/") ? written : context.directory + "/" + written
            guard let (path, relativeFile) = find(absolute, relative: relative, entry: entry) else { continue }
            let display = ManifestLocator.shownPath(relativeFile, under: shownBase)
            let realPath = FileText.realPath(path) ?? path
            if let start = context.chain.firstIndex(where: { $0.realPath == realPath }) {
                reportCycle(context.chain[start...], closedBy: entry, in: context.display)
                continue
            }
            guard let bytes = FileText.readBytes(path) else {
                diagnostics.append(.error("cannot read '\(display)', included as '\(entry.namespace)'", at: entry.path.location))
                continue
            }
            result.includedFiles.append(IncludedFile(path: path, displayName: display, digest: Self.digest(bytes)))
            guard let text = UTF8Text.text(bytes) else {
                diagnostics.append(Diagnostic(at: nil, file: display, "the manifest is not UTF-8 text"))
                continue
            }
            texts[display] = text
            let directory = Directories.parentPath(of: path)
            let file: ManifestFile
            do {
                file = try ManifestLoader.read(
                    text: text, file: display, directory: directory, namePrefix: context.prefix + entry.namespace + ":")
            } catch {
                diagnostics += error.diagnostics
                unreadable.append(context.prefix + entry.namespace + ":")
                continue
            }
            diagnostics += file.diagnostics
            let parent = Directories.parentPath(of: relativeFile)
            let inner = Context(
                display: display, directory: directory, relativeDirectory: parent.isEmpty ? "." : parent,
                prefix: context.prefix + entry.namespace + ":", environment: context.environment + file.manifest.environment,
                chain: context.chain + [Link(realPath: realPath, display: display, via: (entry.namespace, entry.location))])
            merge(file, as: entry, into: inner)
            include(file.includes, of: inner)
        }
    }

    /// `./web/` as `web`, `a//b` as `a/b`: the same path, without what made messages show
    /// `./web//Tasksfile.yaml`. `..` stays: the kernel resolves `link/..` otherwise than text would.
    static func tidied(_ path: String) -> String {
        let names = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        if names.isEmpty { return path.hasPrefix("/") ? "/" : "." }
        return (path.hasPrefix("/") ? "/" : "") + names.joined(separator: "/")
    }

    /// The manifest file an entry names, and its path relative to the root's directory; `nil`
    /// (reported unless optional) when there is none. Every path looked at is recorded for the cache.
    private mutating func find(_ absolute: String, relative: String, entry: IncludeEntry) -> (String, String)? {
        if FileText.isDirectory(absolute) {
            for name in ManifestLocator.fileNames {
                let path = absolute + "/" + name
                if FileText.isFile(path) { return (path, relative + "/" + name) }
                result.includedFiles.append(IncludedFile(path: path, displayName: "", digest: nil))
            }
            if !entry.optional {
                let shown = ManifestLocator.shownPath(relative, under: shownBase)
                diagnostics.append(.error(
                    "include '\(entry.namespace)': no Tasksfile.yaml or Tasksfile.yml in '\(shown)' (add 'optional: true' if it may be missing)",
                    at: entry.path.location))
            }
            return nil
        }
        if FileText.isFile(absolute) { return (absolute, relative) }
        result.includedFiles.append(IncludedFile(path: absolute, displayName: "", digest: nil))
        // A directory that does not exist yet may later hold a manifest.
        for name in ManifestLocator.fileNames {
            result.includedFiles.append(IncludedFile(path: absolute + "/" + name, displayName: "", digest: nil))
        }
        if !entry.optional {
            let shown = ManifestLocator.shownPath(relative, under: shownBase)
            diagnostics.append(.error(
                "include '\(entry.namespace)': '\(shown)' does not exist (add 'optional: true' if it may be missing)"
                    + Self.nearName(of: Self.tidied(entry.path.value), lookedFor: absolute),
                at: entry.path.location))
        }
        return nil
    }

    /// `; did you mean 'sub'?` for `subb`, among the names beside `absolute` (where `written` was
    /// looked for), or the empty string.
    static func nearName(of written: String, lookedFor absolute: String) -> String {
        let parent = Directories.parentPath(of: absolute)
        let name = String(absolute.dropFirst(parent == "/" ? 1 : parent.count + 1))
        guard let names = FileText.names(inDirectory: parent), let near = Suggestion.nearest(to: name, in: names) else { return "" }
        let writtenParent = written.lastIndex(of: "/").map { String(written[...$0]) } ?? ""
        return "; did you mean '\(writtenParent)\(near)'?"
    }

    /// `include cycle: A -> B -> A` with the place of each `includes` entry.
    private mutating func reportCycle(_ links: ArraySlice<Link>, closedBy entry: IncludeEntry, in file: String) {
        let path = links.map { $0.display } + [links.first!.display]
        var notes: [String] = []
        var previous = links.first!.display
        for link in links.dropFirst() {
            if let via = link.via { notes.append("  \(via.location): '\(previous)' includes '\(link.display)' as '\(via.namespace)'") }
            previous = link.display
        }
        notes.append("  \(entry.location): '\(file)' includes '\(links.first!.display)' as '\(entry.namespace)'")
        diagnostics.append(Diagnostic(
            at: nil, file: path[0], "include cycle: \(path.joined(separator: " -> "))", notes: notes))
    }

    /// Appends an included file's tasks, queues, `dotenv` files and namespace, renamed.
    private mutating func merge(_ file: ManifestFile, as entry: IncludeEntry, into context: Context) {
        let prefix = context.prefix
        let namespaces = file.includes.map { $0.namespace }
        let base = context.relativeDirectory
        for queue in file.manifest.queues {
            var renamed = queue
            renamed.name = prefix + queue.name
            result.queues.append(renamed)
        }
        let dotenvFiles = file.manifest.dotenvFiles.map { dotenv in
            var rebased = dotenv
            if !dotenv.value.hasPrefix("/"), let base { rebased.value = base + "/" + dotenv.value }
            return rebased
        }
        result.namespaces.append(NamespaceSpec(
            name: String(prefix.dropLast()), file: context.display, directory: base ?? ".",
            defaultTasks: file.manifest.defaultTasks.map { Self.fullName($0.value, prefix: prefix) },
            location: entry.location, dotenvFiles: dotenvFiles))
        for name in file.manifest.defaultTasks
        where TaskSpecReader.isOutsideReference(name.value, includeNamespaces: namespaces) || namespaces.contains(name.value) {
            pending.append(PendingName(place: .defaultTask, written: name, prefix: prefix, owner: ""))
        }
        result.tasks.reserveCapacity(result.tasks.count + file.manifest.tasks.count)
        for written in file.manifest.tasks {
            var task = written
            task.name = prefix + task.name
            noteOutsideNames(of: written, id: result.tasks.count, prefix: prefix, namespaces: namespaces, owner: task.name)
            for k in task.deps.indices { task.deps[k].value = Self.fullName(task.deps[k].value, prefix: prefix) }
            if let queue = task.queue { task.queue!.value = Self.fullName(queue.value, prefix: prefix) }
            task.baseDirectory = base
            if !context.environment.isEmpty { task.environment = context.environment + task.environment }
            result.tasks.append(task)
        }
    }

    /// `name` as written in a file whose tasks are named `prefix...`: `:codegen` is the root's `codegen`.
    static func fullName(_ name: String, prefix: String) -> String {
        name.utf8.first == UInt8(ascii: ":") ? String(name.dropFirst()) : prefix + name
    }

    /// Records the names of task `id` (`task` as its file wrote it) that its file could not check.
    private mutating func noteOutsideNames(
        of task: TaskSpec, id: Int, prefix: String, namespaces: [String], owner: String? = nil
    ) {
        for (k, dep) in task.deps.enumerated() where TaskSpecReader.isOutsideReference(dep.value, includeNamespaces: namespaces) {
            pending.append(PendingName(place: .dep(task: id, entry: k), written: dep, prefix: prefix, owner: owner ?? task.name))
        }
        if let queue = task.queue, queue.value.utf8.first == UInt8(ascii: ":") {
            pending.append(PendingName(place: .queue(task: id), written: queue, prefix: prefix, owner: owner ?? task.name))
        }
    }

    /// Checks every name left for later, and that no two tasks (or a task and a namespace) share a name.
    private mutating func checkNames() {
        var index: [String: Int] = [:]
        for id in result.tasks.indices {
            let task = result.tasks[id]
            if let first = index.updateValue(id, forKey: task.name) {
                index[task.name] = first
                diagnostics.append(.error(
                    "task '\(task.name)' is defined twice: here and at \(result.tasks[first].location)", at: task.location))
            }
        }
        for namespace in result.namespaces where index[namespace.name] != nil {
            diagnostics.append(.error(
                "include '\(namespace.name)' has the name of task '\(namespace.name)' (\(result.tasks[index[namespace.name]!].location)); `opsrun \(namespace.name)` must mean one of them: rename one",
                at: namespace.location))
        }
        let queues = Set(result.queues.map { $0.name })
        for name in pending {
            let full = Self.fullName(name.written.value, prefix: name.prefix)
            if unreadable.contains(where: { full.hasPrefix($0) }) { continue }
            switch name.place {
            case .dep(let task, let entry):
                if index[full] != nil {
                    result.tasks[task].deps[entry].value = full
                } else if name.written.value.utf8.first == UInt8(ascii: ":") {
                    // The root's `:codegen` with no `codegen`: the manifest loaded may be a
                    // sub-project run on its own, whose root is not here. Its other tasks run;
                    // a run of this one is refused, naming what is missing.
                    result.rootReferences.append(RootReference(task: name.owner, reference: name.written))
                } else {
                    diagnostics.append(.error(
                        "unknown task '\(name.written.value)' in deps of '\(name.owner)'\(suggestion(for: name, among: result.tasks.map { $0.name }))",
                        at: name.written.location))
                }
            case .queue(let task):
                if queues.contains(full) {
                    result.tasks[task].queue?.value = full
                } else {
                    diagnostics.append(.error(
                        "unknown queue '\(name.written.value)' in task '\(name.owner)'\(suggestion(for: name, among: result.queues.map { $0.name }))",
                        at: name.written.location))
                }
            case .defaultTask:
                if index[full] == nil, !result.namespaces.contains(where: { $0.name == full }) {
                    diagnostics.append(.error(
                        "unknown task '\(name.written.value)' in 'default'\(suggestion(for: name, among: result.tasks.map { $0.name }))",
                        at: name.written.location))
                }
            }
        }
    }

    /// `; did you mean ':codegen'?`, among `names` written as the file of `name` would write them.
    private func suggestion(for name: PendingName, among names: [String]) -> String {
        let written = names.map { $0.hasPrefix(name.prefix) ? String($0.dropFirst(name.prefix.count)) : ":" + $0 }
        return Suggestion.phrase(for: name.written.value, in: written)
    }

    /// As the manifest cache compares it (`ManifestCache.digest`).
    static func digest(_ bytes: [UInt8]) -> [UInt8] { ManifestCache.digest(bytes) }
}
