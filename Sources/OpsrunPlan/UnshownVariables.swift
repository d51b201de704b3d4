import OpsrunCore
import OpsrunManifest

/// The variables `-n` and `-v` never paste into a shown command (`ShownCommand`), so that a CI
/// log shows `$DEPLOY_TOKEN` as written, as the command is: what a task `requires` (the
/// variables a deploy needs, often a secret from a dotenv file or the command line), a name that
/// reads as a secret (`DEPLOY_TOKEN`, `DB_PASSWORD`, `SSH_KEY`...), and an `env` entry (the task's
/// or the manifest's) whose value is made from one of those (`AUTH: "Bearer ${TOKEN}"`).
///
/// Asked of every variable a shown command pastes (100,000 for a `-n` of 100,000 instances):
/// nothing is copied or allocated for a name that is neither (`uppercased()` and
/// `String.contains` cost 88,000 instructions a name, callgrind).
enum UnshownVariables {
    static func contains(_ name: String, task: TaskSpec, manifestEnvironment: [EnvironmentEntry]) -> Bool {
        var visited: [String] = []
        return isUnshown(name, task, manifestEnvironment, &visited)
    }

    private static func isUnshown(
        _ name: String, _ task: TaskSpec, _ manifestEnvironment: [EnvironmentEntry], _ visited: inout [String]
    ) -> Bool {
        if readsAsSecret(name) || task.requires.contains(where: { $0.value == name }) { return true }
        if visited.contains(name) { return false }
        visited.append(name)
        // Made from another variable that is not shown: its value holds that one's.
        for entry in task.environment where entry.name == name {
            for reference in Interpolation.references(in: entry.value)
            where isUnshown(reference, task, manifestEnvironment, &visited) { return true }
        }
        for entry in manifestEnvironment where entry.name == name {
            for reference in Interpolation.references(in: entry.value)
            where isUnshown(reference, task, manifestEnvironment, &visited) { return true }
        }
        return false
    }

    /// Whether a name says its value is a secret, as CI systems guess which values to mask: it
    /// holds one of `secretWords` or ends in `_KEY` (or is `KEY`, or ends in `APIKEY`), in any case.
    static func readsAsSecret(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            secretWords.contains { word in
                bytes.count >= word.count
                    && (0...(bytes.count - word.count)).contains { start in matches(word, bytes, at: start) }
            }
                || (bytes.count >= 3 && matches(Array("KEY".utf8), bytes, at: bytes.count - 3)
                    && (bytes.count == 3 || bytes[bytes.count - 4] == UInt8(ascii: "_")
                        || (bytes.count >= 6 && matches(Array("APIKEY".utf8), bytes, at: bytes.count - 6))))
        }
    }

    private static let secretWords: [[UInt8]] = ["TOKEN", "SECRET", "PASSW", "PASSPHRASE", "CREDENTIAL", "AUTH", "PRIVATE"]
        .map { Array($0.utf8) }

    /// Whether `bytes` holds `word` (upper case) at `start`, ASCII letters in either case.
    private static func matches(_ word: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        for (offset, letter) in word.enumerated() {
            let byte = bytes[start + offset]
            let upper = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
            if upper != letter { return false }
        }
        return true
    }
}
