// One `.opsrun/` serves every manifest of its directory, and two of them may well have a task of
// the same name (`opsrun -f a.yaml gen`, `opsrun -f b.yaml gen`). Keyed by the bare task name, their
// records overwrote each other: each run found the other's record, so both ran every time, and one's
// failure showed in the other's `--explain`. The file name keeps them apart: `b.yaml/gen`, where the
// `/` can be neither in a file name nor in a task name, so no two keys ever meet. (An instance of
// an `each` task, `compile[src/a.c]`, may hold a `/`, but only after a `[`, which no task name
// has: its bare key could meet another manifest's only if that manifest's file name had a `[`.)
// `Tasksfile.yaml`, the manifest opsrun finds by itself, keeps bare names: the state projects
// already have stays good.

/// The names a manifest's task records go by in the state it shares with its directory's others.
public struct StateRecordNames: Sendable, Equatable {
    /// The manifest whose records keep bare task names.
    public static let bareManifestName = "Tasksfile.yaml"

    /// Empty for `Tasksfile.yaml`, else the manifest's file name and `/`.
    let prefix: String

    /// For the manifest at `manifestPath` (its file name is what counts).
    public init(manifestPath: String) {
        let name = manifestPath.split(separator: "/").last.map(String.init) ?? manifestPath
        prefix = name == Self.bareManifestName ? "" : name + "/"
    }

    /// The names of `Tasksfile.yaml`'s records: the bare task names.
    public static let bare = StateRecordNames(manifestPath: bareManifestName)

    /// The key of `task`'s record.
    func key(of task: String) -> String { prefix.isEmpty ? task : prefix + task }

    /// The task whose key `key` is, when it is one of this manifest's; `nil` for another's.
    func task(ofKey key: String) -> String? {
        guard prefix.isEmpty else { return key.hasPrefix(prefix) ? String(key.dropFirst(prefix.count)) : nil }
        // Another manifest's key is `<file name>/<task>`; a task's own name holds a `/` only inside
        // the `[...]` of an `each` instance.
        if let slash = key.firstIndex(of: "/"), !key[..<slash].contains("[") { return nil }
        return key
    }
}
