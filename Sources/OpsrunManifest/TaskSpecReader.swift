import OpsrunCore
import OpsrunEngine
/// Reads one entry of `tasks:` into a `TaskSpec`, reporting every problem in it.
struct TaskSpecReader {
    static let keys = [
        "desc", "deps", "run", "dir", "env", "sources", "outputs", "depfile", "queue", "priority", "qos", "timeout",
        "retries", "allow_failure", "interactive", "requires", "each", "service", "ready", "ready_timeout", "cleanup", "cache",
        "shell", "pass_env",
    ]
    /// Keys other tools use for what a task key of opsrun does, too far from it for edit distance
    /// (`depends` is three edits from `deps`): go-task's `cmds` and `generates`, GitHub Actions'
    /// `needs` and `working-directory`, ninja's `pool`, and the like.
    static let borrowedKeys: [String: String] = [
        "cmds": "run", "cmd": "run", "command": "run", "commands": "run", "script": "run", "steps": "run",
        "depends": "deps", "depends_on": "deps", "depends-on": "deps", "dependencies": "deps", "needs": "deps",
        "description": "desc", "summary": "desc", "help": "desc",
        "cwd": "dir", "workdir": "dir", "working_directory": "dir", "working-directory": "dir", "directory": "dir",
        "working_dir": "dir",
        "vars": "env", "variables": "env", "environment": "env",
        "inputs": "sources", "srcs": "sources",
        "generates": "outputs", "targets": "outputs", "artifacts": "outputs", "products": "outputs",
        "pool": "queue", "concurrency": "queue",
        "retry": "retries",
        "ignore_error": "allow_failure", "ignore_errors": "allow_failure",
        "readiness": "ready", "healthcheck": "ready", "health_check": "ready", "ready_check": "ready",
        "teardown": "cleanup", "finally": "cleanup", "always": "cleanup", "post": "cleanup", "defer": "cleanup",
        "background": "service", "daemon": "service", "continuous": "service", "persistent": "service",
        "continue-on-error": "allow_failure", "continue_on_error": "allow_failure",
        "for": "each", "foreach": "each", "for_each": "each", "for-each": "each", "matrix": "each", "loop": "each",
        "depfiles": "depfile", "dep_file": "depfile", "dependency_file": "depfile",
        "interpreter": "shell", "passthrough_env": "pass_env", "pass_through_env": "pass_env",
        "passenv": "pass_env", "env_passthrough": "pass_env",
    ]

    /// `; did you mean 'deps'?` for an unknown key of a task, or the empty string.
    /// Why a name in `deps` names no task, when it names something else: an included manifest
    /// (`web`, which the command line and `default` take as its default task) or an instance
    /// (`compile[src/a.c]`, which only the command line names); else the nearest task's name.
    private func unknownDependencyHint(_ written: String, _ checker: inout ManifestChecker) -> String {
        if includeNamespaces.contains(written) {
            return "; '\(written)' is an included manifest: name one of its tasks ('\(written):TASK')"
        }
        if let bracket = written.firstIndex(of: "["), taskNames.contains(String(written[..<bracket])) {
            return "; deps name tasks, not their instances: '\(written[..<bracket])' means every instance"
        }
        // `wbe:build`: a misspelt namespace (whose tasks are not read yet) is near an include's.
        if let colon = written.firstIndex(of: ":"), colon != written.startIndex,
            let namespace = Suggestion.nearest(to: String(written[..<colon]), in: includeNamespaces)
        {
            return "; did you mean '\(namespace)\(written[colon...])'?"
        }
        return checker.taskSuggestion(for: written, among: taskOrder)
    }

    /// A task named like a task key (`deps:`, `run:`, `env:`) whose value reads as that key's, not
    /// as a task's: a key of the task above, indented too little. Without this it became a task of
    /// its own (`deps: [lint]` a task running the command `lint`), and its task lost it silently.
    /// Only for keys no one names a task after: `run`, `cache`, `service` and `cleanup` are
    /// tasks' names too (`cleanup: rm -rf build`). A mapping with a task key in it is a task.
    private func misindentedKey(_ key: String, _ value: YAMLNode) -> String? {
        guard TaskKey(key) != nil, !Self.plausibleTaskNames.contains(key) else { return nil }
        if case .mapping(let entries) = value.content, entries.contains(where: { TaskKey($0.key) != nil }) {
            return nil
        }
        // The nearest task above that is not itself a misplaced key.
        let above = taskOrder.firstIndex(of: key).flatMap { taskOrder[..<$0].last { TaskKey($0) == nil } }
        return "'\(key)' is a task key, written here as a task at the level of 'tasks'"
            + (above.map { "; if it belongs to '\($0)' above, indent it under that task" } ?? "")
            + "; a task named '\(key)' needs the long form ('\(key): { run: ... }')"
    }

    static let plausibleTaskNames: Set<String> = ["run", "cache", "service", "cleanup"]

    /// `.`, `./`, `..`, `../..`: a path made only of `.` and `..` components.
    static func namesItsOwnDirectoryOrAbove(_ path: String) -> Bool {
        !path.hasPrefix("/") && path.split(separator: "/").allSatisfy { $0 == "." || $0 == ".." }
    }

    static func keySuggestion(for key: String) -> String {
        ManifestChecker.keySuggestion(for: key, keys: keys, borrowed: borrowedKeys)
    }
    static let maximumRetries = 100

    /// Every name under `tasks:` in written order (suggestions prefer the earliest of equals),
    /// including misspelt ones, so a reference to one is not noise.
    let taskOrder: [String]
    let taskNames: Set<String>
    /// Queues declared, in order; `nil` when `queues:` itself was unreadable: references go unchecked.
    let queueNames: [String]?
    /// The namespaces of the manifest's `includes`: `web:build` names a task of one, checked once
    /// every included file is read (`IncludeLoader`).
    let includeNamespaces: [String]
    /// `web:` when the file is included as `web`: messages name its tasks as a run does.
    let namePrefix: String

    init(taskOrder: [String], queueNames: [String]?, includeNamespaces: [String] = [], namePrefix: String = "") {
        self.namePrefix = namePrefix
        self.taskOrder = taskOrder
        self.taskNames = Set(taskOrder)
        self.queueNames = queueNames
        self.includeNamespaces = includeNamespaces
    }

    /// Whether `name` is not this file's to check: `:codegen` (the root manifest's task) or a
    /// name in an included manifest's namespace.
    static func isOutsideReference(_ name: String, includeNamespaces: [String]) -> Bool {
        if name.utf8.first == UInt8(ascii: ":") { return true }
        guard !includeNamespaces.isEmpty, let colon = name.firstIndex(of: ":") else { return false }
        return includeNamespaces.contains { $0 == name[..<colon] }
    }

    /// Reads `value` into `spec`, which holds only the task's name and place.
    func read(_ value: YAMLNode, into spec: inout TaskSpec, _ checker: inout ManifestChecker) {
        let name = namePrefix + spec.name
        let location = spec.location
        let before = checker.diagnostics.count
        var runOrDepsReported = false
        var serviceKeys = ServiceKeys()
        if let misplaced = misindentedKey(spec.name, value) {
            checker.error(misplaced, at: location)
            return
        }
        switch value.content {
        case _ where value.isNull:
            break
        case .scalar, .sequence:
            // Shorthand: the task is only its command(s).
            spec.commands = checker.strings(value, commandWording(name)) ?? []
            runOrDepsReported = checker.diagnostics.count > before
        case .mapping(let entries):
            for entry in entries {
                // One classification per key: a `contains` over `keys` and then a `switch` on the
                // string would compare it with up to fourteen others, twice.
                guard let key = TaskKey(entry.key) else {
                    checker.error(
                        "unknown key '\(entry.key)' in task '\(name)'\(Self.keySuggestion(for: entry.key))",
                        at: entry.keyLocation)
                    continue
                }
                // `key:` with nothing after it is the same as leaving the key out.
                if entry.value.isNull { continue }
                let count = checker.diagnostics.count
                switch key {
                case .service, .ready, .readyTimeout:
                    readServiceKey(key, entry.key, entry.value, task: name, into: &serviceKeys, &checker)
                    continue
                default:
                    break
                }
                read(key, entry.key, entry.value, of: &spec, into: &checker)
                if key == .run || key == .deps {
                    runOrDepsReported = runOrDepsReported || checker.diagnostics.count > count
                }
            }
        }
        // A bad 'run' or 'deps' was reported already; saying the task has neither would be noise.
        if spec.commands.isEmpty, spec.deps.isEmpty, !runOrDepsReported {
            checker.error("task '\(name)' has neither 'run' nor 'deps'", at: location)
        }
        // Only a command writes a depfile: on a group it would wait forever for one.
        if let depfile = spec.depfile, spec.commands.isEmpty, !runOrDepsReported {
            checker.error("task '\(name)' has a 'depfile' but no 'run' to write it", at: depfile.location)
        }
        if let each = spec.each { checkEach(each, of: spec, runReported: runOrDepsReported, &checker) }
        if serviceKeys.isUsed { checkService(serviceKeys, of: &spec, runReported: runOrDepsReported, &checker) }
        if let first = spec.cleanup.first, spec.commands.isEmpty, !runOrDepsReported {
            checker.error("task '\(name)' has 'cleanup' but no 'run': a cleanup runs after the task's commands", at: first.location)
        }
    }

    private func commandWording(_ name: String) -> ManifestChecker.ListWording {
        ManifestChecker.ListWording(
            whole: "'run' of task '\(name)'", expected: "a command or a list of commands",
            wrongEntry: { "each command of task '\(name)' must be a string, not \($0)" },
            emptyEntry: "task '\(name)' has an empty command")
    }

    /// Reads one key of a task's mapping into `spec`.
    private func read(
        _ kind: TaskKey, _ key: String, _ node: YAMLNode, of spec: inout TaskSpec, into checker: inout ManifestChecker
    ) {
        let name = namePrefix + spec.name
        // Computed: the wording is built only for a message.
        var what: String { "'\(key)' of task '\(name)'" }
        switch kind {
        case .desc:
            guard let text = checker.scalar(node, what, must: "a string") else { return }
            // A block scalar (`|`, `>`) ends with a newline; only a line break inside is a second line.
            var line = Substring(text)
            while line.last?.isNewline == true { line.removeLast() }
            if line.contains(where: { $0.isNewline }) {
                checker.error("\(what) must be one line", at: node.location)
            }
            spec.description = String(line)
        case .deps:
            guard
                let deps = checker.strings(
                    node,
                    ManifestChecker.listWording("'deps' of task '\(name)'", of: "a task name", plural: "task names"))
            else { return }
            // Most lists are short: a scan of the earlier entries beats a dictionary per task.
            var seen: [String: SourceLocation] = [:]
            let useDictionary = deps.count > 8
            if useDictionary { seen.reserveCapacity(deps.count) }
            // Only a repeat is left out; until one is, the list read is the list kept (no copy).
            var kept: [Located<String>]?
            for (position, dep) in deps.enumerated() {
                let first = useDictionary
                    ? seen[dep.value]
                    : deps[..<position].first(where: { $0.value == dep.value })?.location
                if let first {
                    checker.error(
                        "duplicate dependency '\(dep.value)' in deps of '\(name)' (first written at line \(first.line), column \(first.column))",
                        at: dep.location)
                    if kept == nil { kept = Array(deps[..<position]) }
                    continue
                }
                if useDictionary { seen[dep.value] = dep.location }
                if !taskNames.contains(dep.value) {
                    if Self.isOutsideReference(dep.value, includeNamespaces: includeNamespaces) {
                        checker.sawOutsideReference = true
                        kept?.append(dep)
                        continue
                    }
                    checker.error(
                        "unknown task '\(dep.value)' in deps of '\(name)'\(unknownDependencyHint(dep.value, &checker))",
                        at: dep.location)
                }
                kept?.append(dep)
            }
            let result = kept ?? deps
            if spec.deps.isEmpty { spec.deps = result } else { spec.deps += result }
        case .run:
            guard let commands = checker.strings(node, commandWording(name)) else { return }
            spec.commands = commands
        case .cleanup:
            guard let commands = checker.strings(node, cleanupWording(name)) else { return }
            spec.cleanup = commands
        case .shell:
            spec.shell = ShellSpec.read(node, what, into: &checker)
        case .passEnv:
            spec.passEnvironment += PassEnvironment.read(node, what, into: &checker)
        case .service, .ready, .readyTimeout:
            preconditionFailure("read by readServiceKey")
        case .dir, .depfile:
            guard let text = checker.scalar(node, what, must: "a path") else { return }
            if text.allSatisfy({ $0.isWhitespace }) {
                checker.error("\(what) is empty", at: node.location)
            } else {
                checker.checkPathExpansions(text, at: node.location, in: what)
                if kind == .dir {
                    spec.directory = Located(text, at: node.location)
                } else {
                    spec.depfile = Located(text, at: node.location)
                }
            }
        case .env:
            spec.environment = checker.environment(node, what)
        case .each:
            spec.each = checker.each(node, task: name)
        case .sources, .outputs:
            guard let paths = checker.strings(node, ManifestChecker.listWording(what, of: "a path", plural: "paths"))
            else { return }
            for path in paths { checker.checkPathExpansions(path.value, at: path.location, in: what) }
            if kind == .outputs {
                // `.` stands for every file in the task's directory: its sources and the manifest
                // too, which a run would then count as its outputs and a restore would overwrite.
                for path in paths where Self.namesItsOwnDirectoryOrAbove(path.value) {
                    checker.error(
                        "an output of task '\(name)' is '\(path.value)', the task's own directory or one above it, "
                            + "which holds its sources and the manifest; name the files or a directory it writes (build/, dist/)",
                        at: path.location)
                }
            }
            if kind == .sources { spec.sources = paths } else { spec.outputs = paths }
        case .requires:
            if case .mapping = node.content {
                // go-task writes `requires: { vars: [A, B] }`.
                checker.error(
                    "\(what) must be a variable name or a list of variable names, not a mapping (write requires: [A, B])",
                    at: node.location)
                return
            }
            guard
                let names = checker.strings(
                    node, ManifestChecker.listWording(what, of: "a variable name", plural: "variable names"))
            else { return }
            for variable in names where !ManifestNames.isEnvironmentName(variable.value) {
                checker.error(
                    "invalid variable name '\(variable.value)' in \(what); use letters, digits and '_', not starting with a digit",
                    at: variable.location)
            }
            spec.requires = names
        case .queue:
            guard let queue = checker.scalar(node, what, must: "a queue name") else { return }
            if queue.utf8.first == UInt8(ascii: ":") {
                checker.sawOutsideReference = true  // the root manifest's queue
            } else if let queueNames, !queueNames.contains(queue) {
                let hint = queueNames.isEmpty
                    ? "; no queues are declared under 'queues'" : Suggestion.phrase(for: queue, in: queueNames)
                checker.error("unknown queue '\(queue)' in task '\(name)'\(hint)", at: node.location)
            }
            spec.queue = Located(queue, at: node.location)
        case .priority:
            guard let text = checker.scalar(node, what, must: "a priority") else { return }
            if let priority = QueuePriority(name: text) {
                spec.priority = priority
            } else {
                unknown("priority", text, in: name, allowed: QueuePriority.allCases.map { $0.name }, at: node, &checker)
            }
        case .qos:
            guard let text = checker.scalar(node, what, must: "a quality of service") else { return }
            if let qos = QualityOfService(rawValue: text) {
                spec.qualityOfService = qos
            } else {
                unknown("qos", text, in: name, allowed: QualityOfService.allCases.map { $0.rawValue }, at: node, &checker)
            }
        case .timeout:
            guard let text = checker.scalar(node, what, must: "a duration") else { return }
            switch TimeoutDuration.parse(text) {
            case .milliseconds(0):
                checker.error("\(what) must be longer than zero", at: node.location)
            case .milliseconds(let ms):
                spec.timeoutMilliseconds = ms
            case .malformed:
                checker.error("\(what) must be a duration like 90s, 10m or 1h30m, not '\(text)'", at: node.location)
            case .tooLong:
                checker.error("\(what) must be at most 168h (a week), not '\(text)'", at: node.location)
            }
        case .retries:
            guard let text = checker.scalar(node, what, must: "a whole number") else { return }
            if let retries = ManifestChecker.integer(text, in: 0...Self.maximumRetries) {
                spec.retries = retries
            } else if !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                checker.error("\(what) must be at most \(Self.maximumRetries), not '\(text)'", at: node.location)
            } else {
                checker.error("\(what) must be a whole number of 0 or more, not '\(text)'", at: node.location)
            }
        case .allowFailure, .interactive, .cache:
            guard let text = checker.scalar(node, what, must: "true or false") else { return }
            guard text == "true" || text == "false" else {
                checker.error("\(what) must be true or false, not '\(text)'", at: node.location)
                return
            }
            switch kind {
            case .interactive: spec.interactive = text == "true"
            case .cache: spec.cache = text == "true"
            default: spec.allowFailure = text == "true"
            }
        }
    }

    /// What `each` asks of the rest of the task: commands for its instances to run, and no `env`
    /// entry that would hide an instance's own value.
    private func checkEach(_ each: EachSpec, of spec: TaskSpec, runReported: Bool, _ checker: inout ManifestChecker) {
        // Without 'deps' either, "has neither 'run' nor 'deps'" says it already.
        if spec.commands.isEmpty, !spec.deps.isEmpty, !runReported {
            checker.error("task '\(namePrefix + spec.name)' has 'each' but no 'run': each instance runs the task's commands", at: each.location)
        }
        for entry in spec.environment where each.variables.contains(where: { $0.name == entry.name }) {
            checker.error(
                "'\(entry.name)' is set by 'each' of task '\(namePrefix + spec.name)', so it cannot also be in the task's 'env'",
                at: entry.location)
        }
    }

    private func unknown(
        _ what: String, _ value: String, in task: String, allowed: [String], at node: YAMLNode, _ checker: inout ManifestChecker
    ) {
        let hint = Suggestion.nearest(to: value, in: allowed).map { "; did you mean '\($0)'?" }
            ?? "; use \(ManifestNames.alternatives(allowed))"
        checker.error("unknown \(what) '\(value)' in task '\(task)'\(hint)", at: node.location)
    }
}
