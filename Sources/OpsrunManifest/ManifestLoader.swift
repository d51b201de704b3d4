import OpsrunCore
/// Reads and validates a manifest (SPEC §2–3): YAML text in, a `Manifest` or every problem out.
public enum ManifestLoader {
    static let topLevelKeys = ["version", "default", "env", "dotenv", "queues", "tasks"]
    /// Top-level keys of other tools (go-task's `vars`, ninja's pools) too far from ours for edit distance.
    static let borrowedTopLevelKeys = [
        "vars": "env", "variables": "env", "environment": "env", "env_file": "dotenv", "env-file": "dotenv",
        "pools": "queues",
    ]

    /// Parses and validates; throws DiagnosticList holding every error (sorted by location).
    ///
    /// `file` is the name locations carry; `directory` is the manifest's absolute directory.
    public static func load(text: String, file: String, directory: String) throws(DiagnosticList) -> Manifest {
        var manifest = Manifest(file: file, directory: directory)
        var checker = ManifestChecker(text: text)
        guard let root = try YAMLDocument.parse(text, file: file) else {
            throw DiagnosticList([Diagnostic(at: nil, file: file, "the manifest is empty; it needs a 'tasks' mapping")])
        }
        guard case .mapping(let entries) = root.content else {
            throw DiagnosticList([.error("the manifest must be a mapping with a 'tasks' key, not \(root.kindDescription)", at: root.location)])
        }
        var byKey: [String: YAMLMappingEntry] = [:]
        for entry in entries {
            if topLevelKeys.contains(entry.key) {
                byKey[entry.key] = entry
            } else if !entry.key.hasPrefix("x-") {  // `x-` keys are free, e.g. for anchors
                checker.error(
                    "unknown top-level key '\(entry.key)'\(borrowedTopLevelKeys[entry.key].map { "; did you mean '\($0)'?" } ?? Suggestion.phrase(for: entry.key, in: topLevelKeys))",
                    at: entry.keyLocation)
            }
        }
        // `key:` with nothing after it is the same as leaving the key out, except for 'tasks'.
        func value(_ key: String) -> YAMLNode? { byKey[key].flatMap { $0.value.isNull ? nil : $0.value } }

        if let version = value("version"), let text = checker.scalar(version, "'version'", must: "1"), text != "1" {
            checker.error("'version' must be 1, not '\(text)'", at: version.location)
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
        let taskNames = readTasks(byKey["tasks"], root: root, queueNames: queueNames, into: &manifest, &checker)
        if let defaults = value("default") {
            manifest.defaultTasks = readDefault(defaults, taskNames: taskNames, into: &checker)
        }
        if !checker.diagnostics.isEmpty { throw DiagnosticList(checker.sortedDiagnostics) }
        return manifest
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
        _ entry: YAMLMappingEntry?, root: YAMLNode, queueNames: [String]?, into manifest: inout Manifest,
        _ checker: inout ManifestChecker
    ) -> (order: [String], set: Set<String>)? {
        guard let entry else {
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
        let reader = TaskSpecReader(taskOrder: tasks.map { $0.key }, queueNames: queueNames)
        manifest.tasks.reserveCapacity(tasks.count)
        for task in tasks {
            if let problem = ManifestNames.problem(withName: task.key) {
                checker.error(problem, at: task.keyLocation)
            }
            // Read in place: a `TaskSpec` returned and then appended is copied on the way.
            manifest.tasks.append(TaskSpec(name: task.key, location: task.keyLocation))
            reader.read(task.value, into: &manifest.tasks[manifest.tasks.count - 1], &checker)
        }
        return (reader.taskOrder, reader.taskNames)
    }

    /// `default:` — a task name or a list of them; names are checked only when `tasks:` was readable.
    static func readDefault(
        _ node: YAMLNode, taskNames: (order: [String], set: Set<String>)?, into checker: inout ManifestChecker
    ) -> [Located<String>] {
        let wording = ManifestChecker.listWording("'default'", of: "a task name", plural: "task names")
        let names = checker.strings(node, wording) ?? []
        if let taskNames {
            // The reader's set: building another one would hash every task name again.
            for name in names where !taskNames.set.contains(name.value) {
                checker.error(
                    "unknown task '\(name.value)' in 'default'\(checker.taskSuggestion(for: name.value, among: taskNames.order))",
                    at: name.location)
            }
        }
        return names
    }
}
