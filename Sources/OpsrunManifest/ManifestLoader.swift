import OpsrunCore
/// Reads and validates a manifest (docs/manual/manifest.md): YAML text in, a `Manifest` or every problem out.
public enum ManifestLoader {
    static let topLevelKeys = ["version", "default", "env", "dotenv", "queues", "tasks", "includes", "shell", "pass_env"]
    /// Top-level keys of other tools (go-task's `vars`, ninja's pools) too far from ours for edit distance.
    static let borrowedTopLevelKeys = [
        "vars": "env", "variables": "env", "environment": "env", "env_file": "dotenv", "env-file": "dotenv",
        "pools": "queues", "include": "includes", "imports": "includes", "import": "includes",
        "interpreter": "shell", "passthrough_env": "pass_env", "pass_through_env": "pass_env", "passenv": "pass_env",
    ]

    /// Parses and validates; throws DiagnosticList holding every error (sorted by location).
    ///
    /// `file` is the name locations carry; `directory` is the manifest's absolute directory.
    /// Included manifests are read from disk (`IncludeLoader`); their texts are lost here, so
    /// callers that render diagnostics use `loadWithIncludes`.
    public static func load(text: String, file: String, directory: String) throws(DiagnosticList) -> Manifest {
        do {
            return try loadWithIncludes(text: text, file: file, directory: directory).manifest
        } catch {
            throw DiagnosticList(error.diagnostics)
        }
    }

    /// `load`, with the text of every included file read, by its display name, for rendering
    /// diagnostics (also thrown with them).
    public static func loadWithIncludes(
        text: String, file: String, directory: String
    ) throws(ManifestLoadError) -> (manifest: Manifest, includedTexts: [String: String]) {
        var read: ManifestFile
        do {
            read = try self.read(text: text, file: file, directory: directory)
        } catch {
            throw ManifestLoadError(diagnostics: error.diagnostics, sources: [file: text])
        }
        // The common case: nothing that needs another file or a second look.
        if read.includes.isEmpty && !read.hasOutsideReferences {
            if !read.diagnostics.isEmpty { throw ManifestLoadError(diagnostics: read.diagnostics, sources: [file: text]) }
            return (read.manifest, [:])
        }
        return try IncludeLoader.load(root: read, text: text, file: file, directory: directory)
    }

    /// One file's manifest, its `includes` not yet read, with the problems found in it.
    /// Throws only when the file is not a manifest at all (bad YAML, not a mapping).
    /// `namePrefix`: how messages name the file's tasks (`web:` for an included file's, whose
    /// tasks a run calls `web:build`).
    static func read(text: String, file: String, directory: String, namePrefix: String = "") throws(DiagnosticList) -> ManifestFile {
        var manifest = Manifest(file: file, directory: directory)
        var checker = ManifestChecker(text: text)
        guard let root = try YAMLDocument.parse(text, file: file) else {
            throw DiagnosticList([.error("the manifest is empty; it needs a 'tasks' mapping", at: SourceLocation(file: file, line: 1, column: 1))])
        }
        guard case .mapping(let entries) = root.content else {
            throw DiagnosticList([.error("the manifest must be a mapping with a 'tasks' key, not \(root.kindDescription)", at: root.location)])
        }
        var byKey: [String: YAMLMappingEntry] = [:]
        for entry in entries {
            if topLevelKeys.contains(entry.key) {
                byKey[entry.key] = entry
            } else if !entry.key.hasPrefix("x-") {  // `x-` keys are free, e.g. for anchors
                let suggestion = ManifestChecker.keySuggestion(for: entry.key, keys: topLevelKeys, borrowed: borrowedTopLevelKeys)
                // `run:` at the left margin: a task's key indented too little (`env` is both).
                let taskKeyHint = suggestion.isEmpty && TaskKey(entry.key) != nil
                    ? "; '\(entry.key)' is a key of a task: indent it under its task in 'tasks'" : ""
                checker.error("unknown top-level key '\(entry.key)'" + suggestion + taskKeyHint, at: entry.keyLocation)
            }
        }
        // `key:` with nothing after it is the same as leaving the key out, except for 'tasks'.
        func value(_ key: String) -> YAMLNode? { byKey[key].flatMap { $0.value.isNull ? nil : $0.value } }

        if let version = value("version"), let text = checker.scalar(version, "'version'", must: "1"), text != "1" {
            checker.error("'version' must be 1, not '\(text)'", at: version.location)
        }
        var includes: [IncludeEntry] = []
        if let node = value("includes") {
            includes = IncludeEntry.read(node, into: &checker)
        }
        if let env = value("env") {
            manifest.environment = checker.environment(env, "'env'")
        }
        if let dotenv = value("dotenv") {
            let wording = ManifestChecker.listWording("'dotenv'", of: "a file name", plural: "file names")
            manifest.dotenvFiles = checker.strings(dotenv, wording) ?? []
        }
        var queueNames: [String]? = []
        if let queues = value("queues") {
            manifest.queues = readQueues(queues, names: &queueNames, into: &checker)
        }
        let namespaces = includes.map { $0.namespace }
        let taskNames = readTasks(
            byKey["tasks"], root: root, queueNames: queueNames, includeNamespaces: namespaces, namePrefix: namePrefix,
            into: &manifest, &checker)
        // A manifest's `shell` and `pass_env` are its own tasks' (an included manifest's too, so
        // that it runs the same alone); the root's `pass_env` also reaches the tasks it includes.
        if let node = value("shell"), let shell = ShellSpec.read(node, "'shell'", into: &checker) {
            for index in manifest.tasks.indices where manifest.tasks[index].shell == nil {
                manifest.tasks[index].shell = shell
            }
        }
        if let node = value("pass_env") {
            manifest.passEnvironment = PassEnvironment.read(node, "'pass_env'", into: &checker)
            for index in manifest.tasks.indices {
                manifest.tasks[index].passEnvironment = manifest.passEnvironment + manifest.tasks[index].passEnvironment
            }
        }
        if let defaults = value("default") {
            manifest.defaultTasks = readDefault(defaults, taskNames: taskNames, includeNamespaces: namespaces, into: &checker)
        } else if let task = manifest.tasks.first(where: { $0.name == "default" }) {
            // Without a `default:` key, a task named `default` is the default (go-task's habit;
            // docs/manual/manifest.md).
            manifest.defaultTasks = [Located(task.name, at: task.location)]
        }
        return ManifestFile(
            manifest: manifest, includes: includes, diagnostics: checker.sortedDiagnostics, hasOutsideReferences: checker.sawOutsideReference)
    }

    /// `queues:` — name → `{ max: N }`. `names` becomes `nil` when the section is unreadable.
    static func readQueues(_ node: YAMLNode, names: inout [String]?, into checker: inout ManifestChecker) -> [QueueSpec] {
        guard case .mapping(let entries) = node.content else {
            checker.error("'queues' must be a mapping of queue names to { max: N }, not \(node.kindDescription)", at: node.location)
            names = nil
            return []
        }
        var queues: [QueueSpec] = []
        for entry in entries {
            let name = entry.key
            names?.append(name)
            if let problem = ManifestNames.problem(withName: name, noun: "queue") {
                checker.error(problem, at: entry.keyLocation)
            }
            let fields: [YAMLMappingEntry]
            switch entry.value.content {
            case _ where entry.value.isNull: fields = []
            case .mapping(let f): fields = f
            default:
                checker.error("queue '\(name)' must be a mapping like { max: 2 }, not \(entry.value.kindDescription)", at: entry.value.location)
                continue
            }
            var max: Int?
            var maxWritten = false
            for field in fields {
                guard field.key == "max" else {
                    checker.error("unknown key '\(field.key)' in queue '\(name)'\(Suggestion.phrase(for: field.key, in: ["max"]))", at: field.keyLocation)
                    continue
                }
                maxWritten = true
                let what = "'max' of queue '\(name)'"
                guard let text = checker.scalar(field.value, what, must: "a positive integer") else { continue }
                max = ManifestChecker.integer(text, in: 1...Int.max)
                if max == nil { checker.error("\(what) must be a positive integer, not '\(text)'", at: field.value.location) }
            }
            if !maxWritten {
                checker.error("queue '\(name)' needs 'max', the most of its tasks that may run at once", at: entry.keyLocation)
            }
            if let max { queues.append(QueueSpec(name: name, maxConcurrent: max, location: entry.keyLocation)) }
        }
        return queues
    }

    /// `tasks:`; returns every name written under it (in order, and as a set), or `nil` when it is
    /// missing or unreadable.
    static func readTasks(
        _ entry: YAMLMappingEntry?, root: YAMLNode, queueNames: [String]?, includeNamespaces: [String],
        namePrefix: String = "", into manifest: inout Manifest,
        _ checker: inout ManifestChecker
    ) -> (order: [String], set: Set<String>)? {
        guard let entry else {
            // A root that only gathers its sub-projects (`includes:` alone) is a whole manifest.
            if !includeNamespaces.isEmpty { return ([], []) }
            checker.error("the manifest has no 'tasks' mapping", at: root.location)
            return nil
        }
        let node = entry.value
        if node.isNull {
            checker.error("the manifest has no tasks", at: entry.keyLocation)
            return nil
        }
        guard case .mapping(let tasks) = node.content else {
            checker.error("'tasks' must be a mapping of task names to tasks, not \(node.kindDescription)", at: node.location)
            return nil
        }
        if tasks.isEmpty { checker.error("the manifest has no tasks", at: entry.keyLocation) }
        let reader = TaskSpecReader(
            taskOrder: tasks.map { $0.key }, queueNames: queueNames, includeNamespaces: includeNamespaces,
            namePrefix: namePrefix)
        manifest.tasks.reserveCapacity(tasks.count)
        for task in tasks {
            if let problem = ManifestNames.problem(withName: task.key) {
                checker.error(problem, at: task.keyLocation)
            } else if !includeNamespaces.isEmpty, let colon = task.key.firstIndex(of: ":"),
                case let namespace = String(task.key[..<colon]), includeNamespaces.contains(namespace)
            {
                // `web:extra` here would sit among the included web's tasks, written in another file.
                checker.error(
                    "task '\(namePrefix)\(task.key)' is named inside the namespace of include '\(namespace)'; "
                        + "rename it, or move it into that manifest as '\(task.key.dropFirst(namespace.count + 1))'",
                    at: task.keyLocation)
            }
            // Read in place: a `TaskSpec` returned and then appended is copied on the way.
            manifest.tasks.append(TaskSpec(name: task.key, location: task.keyLocation))
            reader.read(task.value, into: &manifest.tasks[manifest.tasks.count - 1], &checker)
        }
        return (reader.taskOrder, reader.taskNames)
    }

    /// `default:` — a task name or a list of them; names are checked only when `tasks:` was readable.
    static func readDefault(
        _ node: YAMLNode, taskNames: (order: [String], set: Set<String>)?, includeNamespaces: [String],
        into checker: inout ManifestChecker
    ) -> [Located<String>] {
        let wording = ManifestChecker.listWording("'default'", of: "a task name", plural: "task names")
        let names = checker.strings(node, wording) ?? []
        if let taskNames {
            // The reader's set: building another one would hash every task name again.
            for name in names where !taskNames.set.contains(name.value) {
                // `default: web` runs the included web's default, as `opsrun web` does.
                if TaskSpecReader.isOutsideReference(name.value, includeNamespaces: includeNamespaces)
                    || includeNamespaces.contains(name.value)
                {
                    checker.sawOutsideReference = true
                    continue
                }
                checker.error(
                    "unknown task '\(name.value)' in 'default'\(checker.taskSuggestion(for: name.value, among: taskNames.order))",
                    at: name.location)
            }
        }
        return names
    }
}

/// One manifest file as read, before its `includes` are.
struct ManifestFile {
    var manifest: Manifest
    var includes: [IncludeEntry]
    var diagnostics: [Diagnostic]
    /// Whether a name in it (`:codegen`, `web:build`) must be checked once includes are read.
    var hasOutsideReferences: Bool
}

/// A manifest that could not be loaded: every problem, and the text of each file they are in.
public struct ManifestLoadError: Error, Sendable {
    public var diagnostics: [Diagnostic]
    /// Text by display name.
    public var sources: [String: String]

    public init(diagnostics: [Diagnostic], sources: [String: String]) {
        self.diagnostics = diagnostics
        self.sources = sources
    }
}
