import OpsrunCore
import OpsrunEngine
import OpsrunGraph
import OpsrunManifest

/// What a cacheable task's commands see (docs/manual/cache.md, "What a cacheable task sees"):
/// only the variables that enter its cache key, plus a pass-through list whose values do not, as
/// Turborepo's strict mode and Bazel's action environment. A cache entry is then right for every
/// run with its key: a command cannot read `$FLAVOR` from the user's shell and have its output
/// handed to a run under another `FLAVOR`. The same whether or not this run uses a cache, so
/// `--no-cache` changes nothing a command sees.
public enum StrictEnvironment {
    /// Whether the task `id` of `graph` may be restored from the cache: it has `run` and
    /// `outputs`, and reads something declared (`sources`, a `depfile`, or its prerequisites'
    /// outputs), and is not `cache: false`, `interactive` or a service.
    public static func isCacheable(_ id: Int, in graph: TaskGraph) -> Bool {
        whyNotCacheable(id, in: graph) == nil
    }

    /// Why the task `id` of `graph` cannot be cached, in the words `--explain` prints after "not
    /// cacheable: " (`nil` when it can be): the one definition `isCacheable` reads.
    ///
    /// A task without `sources` or a `depfile` is keyed on its prerequisites' outputs only: so it
    /// needs at least one prerequisite that is not a service, and every such prerequisite (a
    /// group stands for its own) must declare outputs. One that declares none may have written
    /// anything the task reads (`compile` writing build/app.txt, which `package` archives):
    /// no key can see that, and a restore would hand back the archive of other contents.
    public static func whyNotCacheable(_ id: Int, in graph: TaskGraph) -> String? {
        let task = graph.tasks[id]
        if task.commands.isEmpty { return "it runs no commands" }
        if !task.cache { return "it says cache: false" }
        if task.interactive { return "it is interactive" }
        if task.service != nil { return "it is a service" }
        if task.outputs.isEmpty { return "it declares no outputs" }
        guard task.sources.isEmpty, task.depfile == nil else { return nil }
        // The direct prerequisites, then those of the groups among them (an `each` task's
        // instances): no allocation unless there is a group.
        var keyed = false
        var groups: [Int] = []
        var seenGroups: Set<Int> = []
        func unkeyed(_ prerequisites: [Int]) -> Int? {
            for next in prerequisites {
                let prerequisite = graph.tasks[next]
                if prerequisite.service != nil { continue }
                if prerequisite.commands.isEmpty {
                    if seenGroups.insert(next).inserted { groups.append(next) }
                    if prerequisite.outputs.isEmpty { continue }
                }
                if prerequisite.outputs.isEmpty { return next }
                keyed = true
            }
            return nil
        }
        var unknown = unkeyed(graph.prerequisites[id])
        var nextGroup = 0
        while unknown == nil, nextGroup < groups.count {
            unknown = unkeyed(graph.prerequisites[groups[nextGroup]])
            nextGroup += 1
        }
        if let unknown {
            return "its prerequisite '\(graph.names[unknown])' declares no outputs, so what it reads is not known"
        }
        return keyed ? nil : "it has no sources, depfile or prerequisites to key it on"
    }

    /// The names (or `*` patterns) of opsrun's environment that pass through to `task`.
    static func passPatterns(of task: TaskSpec, manifest: Manifest) -> [String] {
        PassEnvironment.always + manifest.passEnvironment.map { $0.value } + task.passEnvironment.map { $0.value }
    }

    static func passes(_ name: Substring.UTF8View, _ patterns: [String]) -> Bool {
        patterns.contains { PassEnvironment.matches(name, $0) }
    }

    /// The names whose values enter `task`'s key besides those every task's do
    /// (`EnvironmentBuilder.entersEveryKey`): its `env`, its manifests' `dotenv`, its `requires`,
    /// its `each` values.
    static func ownKeyNames(of task: TaskSpec, _ environment: EnvironmentBuilder) -> Set<String> {
        var names = Set(task.environment.map { $0.name })
        names.formUnion(environment.namespaceDotenvNames(forTask: task.name))
        names.formUnion(task.requires.map { $0.value })
        if let instance = task.instance { names.formUnion(instance.values.map { $0.name }) }
        return names
    }

    /// The environment of a cacheable task's commands. `blocks`: the shared block filtered, by
    /// the task's own `pass_env` (nearly always none), made once for all the tasks that add no
    /// variables of their own: 10,000 instances of a compile share one.
    static func jobEnvironment(
        of task: TaskSpec, manifest: Manifest, _ environment: EnvironmentBuilder, blocks: inout StrictBlocks
    ) -> JobEnvironment {
        if task.environment.isEmpty, task.requires.isEmpty, !environment.hasNamespaceDotenv(forTask: task.name) {
            // Not a closure making it on a miss: its context copied the task, manifest and
            // environment at every call.
            let block: [String]
            if let made = blocks.block(forOwnPasses: task.passEnvironment) {
                block = made
            } else {
                let patterns = passPatterns(of: task, manifest: manifest)
                block = environment.strictSharedBlock { passes($0, patterns) }
                blocks.keep(block, forOwnPasses: task.passEnvironment)
            }
            guard let instance = task.instance else { return JobEnvironment(shared: block, taskName: task.name) }
            // An inherited variable of the same name must go: a second `SRC=` would be ambiguous.
            let inherited = instance.values.contains { environment.shared[$0.name] != nil }
                ? block.filter { entry in !instance.values.contains { entry.hasPrefix($0.name + "=") } }
                : block
            return JobEnvironment(shared: inherited, own: instance.values.map { $0.name + "=" + $0.value }, taskName: task.name)
        }
        let patterns = passPatterns(of: task, manifest: manifest)
        let own = ownKeyNames(of: task, environment)
        let values = environment.variables(forTask: task.name, taskEnvironment: task.environment, instance: task.instance)
        var entries: [String] = []
        for (name, value) in values
        where name == "OPSRUN_TASK" || own.contains(name) || environment.entersEveryKey(name) || passes(name.utf8[...], patterns) {
            entries.append(name + "=" + value)
        }
        return JobEnvironment(entries)
    }
}

/// The shared blocks of a run's cacheable tasks, filtered once for each task's own `pass_env`.
/// Most tasks name none: theirs is kept apart, found without hashing a key per task.
struct StrictBlocks {
    private var plain: [String]?
    private var byOwnPasses: [[String]: [String]] = [:]

    func block(forOwnPasses ownPasses: [Located<String>]) -> [String]? {
        ownPasses.isEmpty ? plain : byOwnPasses[ownPasses.map { $0.value }]
    }

    mutating func keep(_ block: [String], forOwnPasses ownPasses: [Located<String>]) {
        if ownPasses.isEmpty { plain = block } else { byOwnPasses[ownPasses.map { $0.value }] = block }
    }
}
