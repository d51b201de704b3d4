import OpsrunCore
/// `service`, `ready`, `ready_timeout` and `cleanup` (docs/manual/ci.md), read into a `TaskSpec`.
///
/// A service runs every time and beside its dependents, so the keys that say when a task need not
/// run (`sources`, `outputs`, `depfile`, `each`) or how it fails and runs again (`retries`,
/// `allow_failure`, `timeout`, `interactive`) are errors on one, each at its `service:` line.
struct ServiceKeys {
    var service: Located<Bool>?
    var ready: Located<String>?
    var readyTimeout: Located<Int>?

    var isUsed: Bool { service != nil || ready != nil || readyTimeout != nil }
}

extension TaskSpecReader {
    func cleanupWording(_ name: String) -> ManifestChecker.ListWording {
        ManifestChecker.ListWording(
            whole: "'cleanup' of task '\(name)'", expected: "a command or a list of commands",
            wrongEntry: { "each cleanup command of task '\(name)' must be a string, not \($0)" },
            emptyEntry: "task '\(name)' has an empty cleanup command")
    }

    func readServiceKey(
        _ kind: TaskKey, _ key: String, _ node: YAMLNode, task name: String, into keys: inout ServiceKeys,
        _ checker: inout ManifestChecker
    ) {
        let what = "'\(key)' of task '\(name)'"
        switch kind {
        case .service:
            guard let text = checker.scalar(node, what, must: "true or false") else { return }
            guard text == "true" || text == "false" else {
                checker.error("\(what) must be true or false, not '\(text)'", at: node.location)
                return
            }
            keys.service = Located(text == "true", at: node.location)
        case .ready:
            guard let text = checker.scalar(node, what, must: "a command") else { return }
            if text.allSatisfy({ $0.isWhitespace }) {
                checker.error("\(what) is empty", at: node.location)
                return
            }
            keys.ready = Located(text, at: node.location)
        case .readyTimeout:
            guard let text = checker.scalar(node, what, must: "a duration") else { return }
            switch TimeoutDuration.parse(text) {
            case .milliseconds(0):
                checker.error("\(what) must be longer than zero", at: node.location)
            case .milliseconds(let ms):
                keys.readyTimeout = Located(ms, at: node.location)
            case .malformed:
                checker.error("\(what) must be a duration like 30s, 2m or 1m30s, not '\(text)'", at: node.location)
            case .tooLong:
                checker.error("\(what) must be at most 168h (a week), not '\(text)'", at: node.location)
            }
        default:
            preconditionFailure("not a service key: \(key)")
        }
    }

    func checkService(
        _ keys: ServiceKeys, of spec: inout TaskSpec, runReported: Bool, _ checker: inout ManifestChecker
    ) {
        let name = namePrefix + spec.name
        guard let service = keys.service, service.value else {
            for (key, location) in [("ready", keys.ready?.location), ("ready_timeout", keys.readyTimeout?.location)] {
                guard let location else { continue }
                checker.error("'\(key)' of task '\(name)' needs 'service: true': only a service waits to be ready", at: location)
            }
            return
        }
        if spec.commands.isEmpty, !spec.deps.isEmpty, !runReported {
            checker.error("service '\(name)' has no 'run': a service is a command that keeps running", at: service.location)
        }
        var refused: [String] = []
        if !spec.sources.isEmpty { refused.append("sources") }
        if !spec.outputs.isEmpty { refused.append("outputs") }
        if spec.depfile != nil { refused.append("depfile") }
        if spec.each != nil { refused.append("each") }
        if spec.retries > 0 { refused.append("retries") }
        if spec.allowFailure { refused.append("allow_failure") }
        if spec.timeoutMilliseconds != nil { refused.append("timeout") }
        if spec.interactive { refused.append("interactive") }
        for key in refused {
            checker.error(
                "service '\(name)' cannot have '\(key)': \(Self.whyNot(key))", at: service.location)
        }
        spec.service = ServiceSpec(
            location: service.location, ready: keys.ready,
            readyTimeoutMilliseconds: keys.readyTimeout?.value ?? 60_000)
    }

    private static func whyNot(_ key: String) -> String {
        switch key {
        case "sources", "outputs", "depfile": "a service runs every time its dependents do, never up to date"
        case "each": "one service runs for all its dependents"
        case "retries", "allow_failure": "a service that fails fails the tasks that need it"
        case "timeout": "a service runs as long as it is needed; 'ready_timeout' bounds its start"
        default: "a service runs beside other tasks, without the terminal"
        }
    }
}
