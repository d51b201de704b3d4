import OpsrunCore
import OpsrunManifest
import OpsrunPlan

/// The nearest manifest above a sub-project that includes it, and the namespace it gives it: what
/// a sub-project run alone whose task names the root's (`:codegen`) is told to run instead
/// (`opsrun -C .. web:build`). Looked for only for that message, so its cost (loading the
/// manifests above) is paid on that error alone.
struct IncludingManifest {
    /// Absolute.
    let directory: String
    /// `web`, or `web:ui` for a manifest included two levels down.
    let namespace: String

    /// How many directories up to look.
    static let searchDepth = 8

    /// The including manifest of the manifest at `source`, or `nil` when none of the manifests
    /// above (that load cleanly) includes it.
    static func find(for source: ManifestSource) -> IncludingManifest? {
        guard let own = FileText.realPath(source.path) else { return nil }
        var directory = FileText.absolute(source.directory, relativeTo: FileText.currentDirectory())
        for _ in 0..<searchDepth {
            let parent = Directories.parentPath(of: directory)
            guard !parent.isEmpty, parent != directory else { return nil }
            directory = parent
            for name in ManifestLocator.fileNames where FileText.isFile(directory + "/" + name) {
                guard let project = try? Project.load(explicitFile: directory + "/" + name, workingDirectory: directory)
                else { continue }
                let included = project.manifest.includedFiles.first { $0.digest != nil && FileText.realPath($0.path) == own }
                if let included, let namespace = project.manifest.namespaces.first(where: { $0.file == included.displayName }) {
                    return IncludingManifest(directory: directory, namespace: namespace.name)
                }
            }
        }
        return nil
    }

    /// `opsrun -C .. web:build`: `task` of the sub-project run from here, from the process's
    /// current directory.
    func command(running task: String) -> String {
        let here = FileText.currentDirectory()
        let place: String
        if directory == here {
            place = ""
        } else if here.hasPrefix(directory + "/") {
            let depth = here.dropFirst(directory.count).split(separator: "/").count
            place = "-C " + Array(repeating: "..", count: depth).joined(separator: "/") + " "
        } else if directory.hasPrefix(here + "/") {
            place = "-C " + directory.dropFirst(here.count + 1) + " "
        } else {
            place = "-C " + directory + " "
        }
        return "opsrun \(place)\(namespace):\(task)"
    }
}
