import OpsrunCore

/// `pass_env:` (manifest or task): variables of opsrun's environment that a cacheable task's
/// commands see although they do not enter its cache key, as Turborepo's `passThroughEnv`. A name,
/// or a pattern with `*` (`AWS_*`).
public enum PassEnvironment {
    /// What every cacheable task sees besides the variables that enter its key: what a command
    /// needs to find its tools and talk to the user's machine, never what decides its output.
    public static let always: [String] = [
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "LANG", "LC_*", "TZ",
        "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "SSH_AUTH_SOCK",
    ]

    /// Whether `name` matches `pattern`: equal, or `*` standing for any run of characters.
    public static func matches(_ name: Substring.UTF8View, _ pattern: String) -> Bool {
        let pattern = Array(pattern.utf8)
        guard pattern.contains(UInt8(ascii: "*")) else { return name.elementsEqual(pattern) }
        let text = Array(name)
        // Greedy matching with one back-up point: enough for `*`, linear in practice.
        var (t, p) = (0, 0)
        var star: (p: Int, t: Int)?
        while t < text.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = (p, t)
                p += 1
            } else if p < pattern.count, pattern[p] == text[t] {
                t += 1
                p += 1
            } else if let back = star {
                star = (back.p, back.t + 1)
                p = back.p + 1
                t = back.t + 1
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }

    /// Reads a `pass_env:` value: a name or a list of names, each letters, digits, `_` and `*`.
    static func read(_ node: YAMLNode, _ what: String, into checker: inout ManifestChecker) -> [Located<String>] {
        let wording = ManifestChecker.listWording(what, of: "a variable name", plural: "variable names")
        let names = checker.strings(node, wording) ?? []
        return names.filter { name in
            let valid = name.value.utf8.allSatisfy { $0 == UInt8(ascii: "*") || Interpolation.isNameByte($0, first: false) }
            if !valid {
                checker.error(
                    "invalid variable name '\(name.value)' in \(what); use letters, digits and '_', and '*' for any run of them",
                    at: name.location)
            }
            return valid
        }
    }
}
