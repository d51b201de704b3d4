#if canImport(Glibc)
    import Glibc
#endif
import OpsrunCore
import OpsrunEngine
import OpsrunManifest
import OpsrunReport

/// `opsrun --init`: writes the commented starter manifest, never over an existing one.
enum StarterFile {
    /// Writes `StarterManifest.text` to `-f`'s path, else `Tasksfile.yaml`, in `start` (`-C`'s
    /// directory or the current one). A manifest already there (either spelling, when no `-f`)
    /// is a usage error and stays as it was.
    static func write(_ invocation: Invocation, in start: String, status: Status) -> ExitCode {
        let name = invocation.manifestFile ?? "Tasksfile.yaml"
        let shown = invocation.directory.map { $0 + "/" + name } ?? name
        let path = FileText.absolute(name, relativeTo: start)
        let existing = invocation.manifestFile == nil
            ? ["Tasksfile.yaml", "Tasksfile.yml"].first { FileText.isFile(start + "/" + $0) } : nil
        if let existing {
            let existingShown = invocation.directory.map { $0 + "/" + existing } ?? existing
            status.error("error: \(existingShown) already exists; --init never overwrites a manifest")
            return .usage
        }
        if let code = FileText.createNew(path, Array(StarterManifest.text.utf8)) {
            let reason = code == EEXIST ? "already exists; --init never overwrites a file" : String(cString: strerror(code))
            status.error("error: \(shown): \(reason)")
            return .usage
        }
        let list = invocation.manifestFile.map { "opsrun -f \($0) --list" } ?? "opsrun --list"
        status.result("wrote \(shown): edit it, then try '\(list)'\n")
        return .success
    }
}
