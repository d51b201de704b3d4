import OpsrunCore
import OpsrunManifest

/// The variables `-n` and `-v` never paste into a shown command (`ShownCommand`), so that a CI
/// log shows `$DEPLOY_TOKEN` as written, as the command is: what a task `requires` (the
/// variables a deploy needs, often a secret from a dotenv file or the command line), a name that
/// reads as a secret (`DEPLOY_TOKEN`, `DB_PASSWORD`, `SSH_KEY`...), and an `env` entry (the task's
/// or the manifest's) whose value is made from one of those (`AUTH: "Bearer ${TOKEN}"`).
struct UnshownVariables {
    let task: TaskSpec
    let manifest: Manifest

    func contains(_ name: String) -> Bool {
        var visited: Set<String> = []
        return isUnshown(name, &visited)
    }

    private func isUnshown(_ name: String, _ visited: inout Set<String>) -> Bool {
        guard visited.insert(name).inserted else { return false }
        if Self.readsAsSecret(name) || task.requires.contains(where: { $0.value == name }) { return true }
        // Made from another variable that is not shown: its value holds that one's.
        let entries = task.environment.filter { $0.name == name } + manifest.environment.filter { $0.name == name }
        return entries.contains { entry in
            Interpolation.references(in: entry.value).contains { isUnshown($0, &visited) }
        }
    }

    /// Whether a name says its value is a secret, as CI systems guess which values to mask.
    static func readsAsSecret(_ name: String) -> Bool {
        let upper = name.uppercased()
        return ["TOKEN", "SECRET", "PASSW", "PASSPHRASE", "CREDENTIAL", "AUTH", "PRIVATE"].contains { upper.contains($0) }
            || upper == "KEY" || upper.hasSuffix("_KEY") || upper.hasSuffix("APIKEY")
    }
}
