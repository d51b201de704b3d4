import OpsrunCore
import OpsrunManifest
import OpsrunPlan
import OpsrunReport

/// The nearest manifest above a sub-project that includes it, and the namespace it gives it: what
/// a sub-project run alone whose task names the root's (`:codegen`) is told to run instead
/// (`opsrun -C .. web:build`), and what a run of a sub-project alone warns it lacks (the
/// includer's `env`). Looking costs a few stats of the directories above the project; a manifest
/// found there is read, and loaded only when it has `includes` (from its cache when large; none is
/// ever written there).
struct IncludingManifest {
    /// Absolute.
    let directory: String
    /// `web`, or `web:ui` for a manifest included two levels down.
    let namespace: String
    /// The including manifest's file name (`Tasksfile.yaml`).
    let fileName: String
    /// Whether the including manifest sets variables its tasks see: `env` or `dotenv` of its
    /// own, or `dotenv` of a namespace that holds this one.
    let setsVariables: Bool
    /// The names its `env` sets, as a message lists them (`CC, CFLAGS`); empty when it has none.
    let variableNames: String
    /// Whether dotenv files (its own, or an outer namespace's) set variables too.
    let hasDotenv: Bool

    /// `A, B, C` or `A, B, C, …`.
    private static func listed(_ names: [String]) -> String {
        names.prefix(6).joined(separator: ", ") + (names.count > 6 ? ", …" : "")
    }

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
                let path = directory + "/" + name
                guard let bytes = FileText.readBytes(path), Self.mayInclude(bytes),
                    let source = try? Project.locate(explicitFile: path, workingDirectory: directory),
                    let project = try? Project.load(from: source, writingCacheOn: nil, storingCache: false)
                else { continue }
                let included = project.manifest.includedFiles.first { $0.digest != nil && FileText.realPath($0.path) == own }
                if let included, let namespace = project.manifest.namespaces.first(where: { $0.file == included.displayName }) {
                    let manifest = project.manifest
                    let outer = manifest.namespaces.contains { $0.name != namespace.name && namespace.name.hasPrefix($0.name + ":") && !$0.dotenvFiles.isEmpty }
                    return IncludingManifest(
                        directory: directory, namespace: namespace.name, fileName: name,
                        setsVariables: !manifest.environment.isEmpty || !manifest.dotenvFiles.isEmpty || outer,
                        variableNames: Self.listed(manifest.environment.map { $0.name }),
                        hasDotenv: !manifest.dotenvFiles.isEmpty || outer)
                }
            }
        }
        return nil
    }

    /// Whether a manifest's bytes may include another: one without the word `includes` cannot, and
    /// is not loaded. (Every run looks above its project: one inside a repository whose own
    /// manifest includes nothing pays a read, not a parse.)
    static func mayInclude(_ bytes: [UInt8]) -> Bool {
        let word = Array("includes".utf8)
        guard bytes.count >= word.count else { return false }
        for start in 0...(bytes.count - word.count) where bytes[start] == word[0] {
            if bytes[start..<(start + word.count)].elementsEqual(word) { return true }
        }
        return false
    }

    /// `opsrun -C .. web:test -- -v`: the run asked for (`targets`, `variables`, the arguments
    /// after `--`) of the sub-project, from the including manifest, from the process's current
    /// directory. No target names the sub-project's `default` (`opsrun -C .. web`).
    func command(targets: [String], variables: [(name: String, value: String)], arguments: [String]) -> String {
        var words = ["opsrun"]
        if let place { words += ["-C", place] }
        words += targets.isEmpty ? [namespace] : targets.map { namespace + ":" + $0 }
        words += variables.map { $0.name + "=" + $0.value }
        if !arguments.isEmpty { words += ["--"] + arguments }
        return words.map(ArgumentsNote.quoted).joined(separator: " ")
    }

    /// The including manifest's directory as `-C` takes it from the current directory; `nil` when
    /// it is the current directory.
    private var place: String? {
        let here = FileText.currentDirectory()
        if directory == here { return nil }
        if here.hasPrefix(directory + "/") {
            let depth = here.dropFirst(directory.count).split(separator: "/").count
            return Array(repeating: "..", count: depth).joined(separator: "/")
        }
        if directory.hasPrefix(here + "/") { return String(directory.dropFirst(here.count + 1)) }
        return directory
    }

    /// The including manifest's path as messages show it: from the current directory.
    var shownPath: String { place.map { $0 + "/" + fileName } ?? fileName }

    /// The warning for a sub-project run on its own whose including manifest sets variables
    /// (`env`, `dotenv`) its tasks would have had, which this run does not: `CC` and `CFLAGS` lost
    /// made `cc` fail with exit 127 and no word why. `nil` when the manifest run is included by
    /// none above it, or by one that sets none.
    static func warning(for project: Project, invocation: Invocation) -> String? {
        guard let including = find(for: project.source), including.setsVariables else { return nil }
        let names = including.variableNames
        // `the env (CC, CFLAGS) and dotenv files of Tasksfile.yaml`, whichever it has.
        let env = names.isEmpty ? nil : "env (\(names))"
        let dotenv = including.hasDotenv ? "dotenv files" : nil
        let what = "the " + [env, dotenv].compactMap { $0 }.joined(separator: " and ")
        return "warning: \(project.source.displayName) runs here on its own, without \(what) set by "
            + "\(including.shownPath), which includes it; to run it as included: "
            + including.command(targets: invocation.targets, variables: invocation.variables, arguments: invocation.taskArguments)
    }
}
