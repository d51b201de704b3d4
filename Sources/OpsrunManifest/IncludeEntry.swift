import OpsrunCore
/// One entry of `includes:` (docs/manual/includes.md): `web: web` or `api: { path: services/api/Tasksfile.yaml, optional: true }`.
struct IncludeEntry {
    /// The namespace its tasks are named in: `web` gives `web:build`.
    var namespace: String
    /// A directory holding a Tasksfile.yaml (or .yml), or a manifest's path; relative to the
    /// including manifest's directory.
    var path: Located<String>
    /// Skipped when the file is missing.
    var optional: Bool
    /// Where the namespace is written.
    var location: SourceLocation

    static let keys = ["path", "optional"]
    /// go-task's spellings.
    static let borrowedKeys = ["taskfile": "path", "file": "path", "dir": "path"]

    /// `includes:`: a mapping of namespaces to paths or `{ path:, optional: }`.
    static func read(_ node: YAMLNode, into checker: inout ManifestChecker) -> [IncludeEntry] {
        guard case .mapping(let entries) = node.content else {
            checker.error(
                "'includes' must be a mapping of namespaces to manifest paths, like { web: web }, not \(node.kindDescription)",
                at: node.location)
            return []
        }
        var result: [IncludeEntry] = []
        for entry in entries {
            let namespace = entry.key
            if let problem = ManifestNames.problem(withName: namespace, noun: "namespace") {
                checker.error(problem, at: entry.keyLocation)
                continue
            }
            if namespace.contains(":") {
                checker.error(
                    "invalid namespace '\(namespace)': ':' separates a namespace from a task name; nest includes instead",
                    at: entry.keyLocation)
                continue
            }
            let what = "include '\(namespace)'"
            var path: Located<String>?
            var optional = false
            // An entry with a bad field is not read: whether it may be missing is not known.
            var malformed = false
            switch entry.value.content {
            case .scalar(let text, _) where !entry.value.isNull:
                path = Located(text, at: entry.value.location)
            case .mapping(let fields):
                for field in fields {
                    switch field.key {
                    case "path":
                        if let text = checker.scalar(field.value, "'path' of \(what)", must: "a path") {
                            path = Located(text, at: field.value.location)
                        }
                    case "optional":
                        guard let text = checker.scalar(field.value, "'optional' of \(what)", must: "true or false") else {
                            malformed = true
                            continue
                        }
                        guard text == "true" || text == "false" else {
                            checker.error("'optional' of \(what) must be true or false, not '\(text)'", at: field.value.location)
                            malformed = true
                            continue
                        }
                        optional = text == "true"
                    default:
                        let hint = borrowedKeys[field.key].map { "; did you mean '\($0)'?" }
                            ?? Suggestion.phrase(for: field.key, in: keys)
                        checker.error("unknown key '\(field.key)' in \(what)\(hint)", at: field.keyLocation)
                    }
                }
                if path == nil, !fields.contains(where: { $0.key == "path" }) {
                    checker.error("\(what) needs 'path': a directory with a Tasksfile.yaml, or a manifest file", at: entry.keyLocation)
                }
            default:
                checker.error(
                    "\(what) must be a path or a mapping like { path: web, optional: true }, not \(entry.value.kindDescription)",
                    at: entry.value.location)
            }
            guard let path, !malformed else { continue }
            if ManifestChecker.isBlank(path.value) {
                checker.error("the path of \(what) is empty", at: path.location)
                continue
            }
            result.append(IncludeEntry(namespace: namespace, path: path, optional: optional, location: entry.keyLocation))
        }
        return result
    }
}
