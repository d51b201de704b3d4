import OpsrunCore
import OpsrunManifest
/// The manifest's tasks as a graph: dense integer ids in manifest order and adjacency arrays.
///
/// Edges point from a task to its prerequisites. A dependency on an unknown name is skipped
/// (the loader reports it) and a repeated entry in one task's `deps` counts once, so every
/// consumer can count edges without surprises.
public struct TaskGraph: Sendable {
    /// The manifest file as the user should see it in messages.
    public let file: String
    /// Task names by id.
    public let names: [String]
    /// Task definitions by id.
    public let tasks: [TaskSpec]
    /// Prerequisite ids of each task, in `deps` order.
    public let prerequisites: [[Int]]
    /// The place of each `deps` entry, parallel to `prerequisites`.
    public let prerequisiteLocations: [[SourceLocation]]
    /// Ids of the tasks that list each task in their `deps`, in manifest order.
    public let dependents: [[Int]]
    /// Task id by name.
    public let index: [String: Int]
    /// The edges a source made rather than `deps` (`reads[task][prerequisite]`), with the file
    /// that made each: a cycle through one names it. Empty for the manifest's own graph.
    public let reads: [Int: [Int: FileRead]]

    public init(manifest: Manifest) {
        let index = Self.index(of: manifest.tasks)
        self.init(manifest: manifest, index: index) { _, _, name in index[name] }
    }

    /// The graph of a manifest whose names are already resolved: `dependencyIDs[t][k]` is the id of
    /// the task that `deps` entry `k` of task `t` names, or `-1` for an unknown name (as
    /// `ManifestCodec.decode` returns them). Skips one dictionary lookup per dependency.
    public init(manifest: Manifest, dependencyIDs: [[Int]]) {
        precondition(dependencyIDs.count == manifest.tasks.count, "one list of ids per task")
        self.init(manifest: manifest, index: Self.index(of: manifest.tasks)) { task, entry, _ in
            let id = dependencyIDs[task][entry]
            return id >= 0 ? id : nil
        }
    }

    /// Task id by name; the first of a repeated name keeps its id.
    static func index(of tasks: [TaskSpec]) -> [String: Int] {
        var index: [String: Int] = [:]
        index.reserveCapacity(tasks.count)
        // By index, not binding each TaskSpec: that copied all of it (a dozen retains and releases,
        // 1 ms of a 10,000-task no-op) to read its name.
        for id in tasks.indices {
            let name = tasks[id].name
            // One hash per name.
            if let first = index.updateValue(id, forKey: name) { index[name] = first }
        }
        return index
    }

    /// `resolve(t, k, name)`: the id named by `deps` entry `k` of task `t`, `nil` when no task has that name.
    private init(manifest: Manifest, index: [String: Int], resolve: (Int, Int, String) -> Int?) {
        let tasks = manifest.tasks
        var prerequisites: [[Int]] = []
        var locations: [[SourceLocation]] = []
        prerequisites.reserveCapacity(tasks.count)
        locations.reserveCapacity(tasks.count)
        var dependentCount = [Int](repeating: 0, count: tasks.count)
        // `lastListedBy[p] == id` means task `id` already listed `p`: O(1) duplicate check.
        var lastListedBy = [Int](repeating: -1, count: tasks.count)
        // By index: binding each `TaskSpec` would copy it (a dozen retains) per task.
        for id in tasks.indices {
            let deps = tasks[id].deps
            var ids: [Int] = []
            var places: [SourceLocation] = []
            if !deps.isEmpty {
                ids.reserveCapacity(deps.count)
                places.reserveCapacity(deps.count)
            }
            for entry in deps.indices {
                guard let p = resolve(id, entry, deps[entry].value), lastListedBy[p] != id else { continue }
                lastListedBy[p] = id
                ids.append(p)
                places.append(deps[entry].location)
                dependentCount[p] += 1
            }
            prerequisites.append(ids)
            locations.append(places)
        }
        self.init(
            file: manifest.file, tasks: tasks, prerequisites: prerequisites, prerequisiteLocations: locations,
            index: index, dependentCount: dependentCount)
    }

    /// A graph whose edges are known already: task `t` needs the ids `prerequisites[t]` (each
    /// once), whose entries are written at `prerequisiteLocations[t]`. For tasks made from the
    /// manifest's rather than read from it: the instances of `each` tasks (`TaskInstances`).
    /// `reads`: which of those edges a file made (`TaskInstances`' file edges).
    public init(
        file: String, tasks: [TaskSpec], prerequisites: [[Int]], prerequisiteLocations: [[SourceLocation]],
        reads: [Int: [Int: FileRead]] = [:]
    ) {
        precondition(prerequisites.count == tasks.count && prerequisiteLocations.count == tasks.count)
        var dependentCount = [Int](repeating: 0, count: tasks.count)
        for ids in prerequisites {
            for p in ids { dependentCount[p] += 1 }
        }
        self.init(
            file: file, tasks: tasks, prerequisites: prerequisites, prerequisiteLocations: prerequisiteLocations,
            index: Self.index(of: tasks), dependentCount: dependentCount, reads: reads)
    }

    /// `dependentCount[p]`: how many tasks list `p`, so each `dependents` list is allocated once.
    private init(
        file: String, tasks: [TaskSpec], prerequisites: [[Int]], prerequisiteLocations: [[SourceLocation]],
        index: [String: Int], dependentCount: [Int], reads: [Int: [Int: FileRead]] = [:]
    ) {
        var dependents = dependentCount.map { count -> [Int] in
            var list: [Int] = []
            if count > 0 { list.reserveCapacity(count) }
            return list
        }
        for id in prerequisites.indices {
            for p in prerequisites[id] { dependents[p].append(id) }
        }
        self.file = file
        self.names = tasks.map { $0.name }  // a key path would copy each TaskSpec
        self.tasks = tasks
        self.prerequisites = prerequisites
        self.prerequisiteLocations = prerequisiteLocations
        self.dependents = dependents
        self.index = index
        self.reads = reads
    }

    /// Number of tasks.
    public var count: Int { names.count }

    /// Tasks nothing depends on, in manifest order.
    public var roots: [Int] {
        dependents.indices.filter { dependents[$0].isEmpty }
    }
}
