import OpsrunCore
import OpsrunEngine
import OpsrunManifest
/// The environment each task's commands see, layered as docs/manual/variables.md says: the
/// `dotenv` files, then opsrun's own environment (a variable set there keeps its value: a
/// committed `.env` holds defaults, never overrides what CI sets), then the manifest's `env`, then
/// the task's `env`, then `NAME=VALUE` arguments, plus `OPSRUN_TASK`. An included manifest's task
/// also has its manifests' `dotenv` values, over the root's `dotenv` but under opsrun's
/// environment and the root's `env`, before its manifests' `env` (which the loader put first in
/// its own): a sub-project's `.env` is its own, never a sibling's. opsrun's own settings
/// (`OpsrunSettings`) reach no task.
///
/// `${NAME}` in an `env` value sees everything layered before it, and the `NAME=VALUE` arguments
/// too (as make's command-line variables are seen by the makefile): `CFLAGS: "${OPT} -g"` with
/// `OPT=-O0` on the command line gives `-O0 -g`.
public struct EnvironmentBuilder: Sendable {
    /// Everything but the task's own layer, with `NAME=VALUE` arguments applied last.
    public private(set) var shared: [String: String]
    private let overrides: [(name: String, value: String)]
    /// `shared` as `NAME=VALUE` strings, built once for the tasks that add nothing of their own.
    private let sharedBlock: [String]
    /// The manifest's `env` entries whose `${NAME:?message}` found NAME unset or empty (docs/manual/variables.md);
    /// such an entry's value is left as written. A run reports them before anything starts.
    public private(set) var sharedProblems: [ExpansionFailure] = []
    /// The names opsrun itself sets for every task: the root's `dotenv` files', the manifest's
    /// `env` and the `NAME=VALUE` arguments (what `-n` may show substituted: `ShownCommand`).
    private let definedNames: Set<String>
    /// The included manifests' `dotenv` values, by the prefix of their tasks' names (`web:`),
    /// outermost first; only those with values.
    private let namespaceDotenv: [(prefix: String, values: [(name: String, value: String)])]
    /// opsrun's own environment without its settings: what a task inherits.
    public let inherited: [String: String]
    /// The names the root's `dotenv` files set: they define every task (its up-to-date check and
    /// cache key), whether or not opsrun's environment overrides their values.
    public let dotenvNames: [String]
    /// The names the root's `env` and the `NAME=VALUE` arguments set: an included manifest's
    /// `dotenv` value never replaces them.
    private let rootNames: Set<String>
    /// `rootNames` and `dotenvNames`: the names that enter every task's definition.
    private let sharedKeyNames: Set<String>

    public init(
        processEnvironment: [String: String], dotenv: [(name: String, value: String)],
        manifestEnvironment: [EnvironmentEntry], overrides: [(name: String, value: String)],
        namespaceDotenv: [(namespace: String, values: [(name: String, value: String)])] = []
    ) {
        let inherited = processEnvironment.filter { !OpsrunSettings.contains($0.key) }
        var values = inherited
        for (name, value) in dotenv where inherited[name] == nil { values[name] = value }
        self.inherited = inherited
        var dotenvNames: [String] = []
        for (name, _) in dotenv where !dotenvNames.contains(name) { dotenvNames.append(name) }
        self.dotenvNames = dotenvNames
        rootNames = Set(manifestEnvironment.map { $0.name } + overrides.map { $0.name })
        sharedKeyNames = rootNames.union(dotenvNames)
        var problems: [ExpansionFailure] = []
        Self.apply(manifestEnvironment, to: &values, overrides: overrides) { problems.append($0) }
        for (name, value) in overrides { values[name] = value }
        shared = values
        sharedProblems = problems
        self.overrides = overrides
        sharedBlock = values.map { "\($0.key)=\($0.value)" }
        definedNames = Set(dotenv.map { $0.name } + manifestEnvironment.map { $0.name } + overrides.map { $0.name })
        self.namespaceDotenv = namespaceDotenv.filter { !$0.values.isEmpty }.map { ($0.namespace + ":", $0.values) }
    }

    /// Whether opsrun itself sets `name` for `taskName` (rather than inheriting it).
    public func defines(_ name: String, forTask taskName: String) -> Bool {
        definedNames.contains(name)
            || namespaceDotenv.contains { Self.isTask(taskName, in: $0.prefix) && $0.values.contains { $0.name == name } }
    }

    /// The names an included manifest's `dotenv` files set for `taskName`, which define it.
    public func namespaceDotenvNames(forTask taskName: String) -> [String] {
        namespaceDotenv.filter { Self.isTask(taskName, in: $0.prefix) }.flatMap { $0.values.map { $0.name } }
    }

    /// Whether every task's definition holds `name`'s value: set by the root's `dotenv`, `env`
    /// or a `NAME=VALUE` argument.
    public func entersEveryKey(_ name: String) -> Bool { sharedKeyNames.contains(name) }

    /// The shared block as a cacheable task without variables of its own sees it: the variables
    /// that enter its key, and those of opsrun's environment that `passes` lets through.
    public func strictSharedBlock(passing passes: (Substring.UTF8View) -> Bool) -> [String] {
        sharedBlock.filter { entry in
            let name = entry.utf8.prefix { $0 != UInt8(ascii: "=") }
            return sharedKeyNames.contains(String(Substring(name))) || passes(Substring(name).utf8)
        }
    }

    /// Whether an included manifest's `dotenv` values apply to `taskName`.
    public func hasNamespaceDotenv(forTask taskName: String) -> Bool {
        !namespaceDotenv.isEmpty && namespaceDotenv.contains { Self.isTask(taskName, in: $0.prefix) }
    }

    private static func isTask(_ taskName: String, in prefix: String) -> Bool {
        taskName.utf8.starts(with: prefix.utf8)
    }

    /// The names set by `NAME=VALUE` arguments.
    public var overrideNames: [String] { overrides.map { $0.name } }

    /// The complete environment of `taskName`'s commands (`entries` as `NAME=VALUE`), with the
    /// shared block shared rather than copied when the task adds no `env`. An instance of an `each`
    /// task (`instance`) also has its variables, which win over every other layer (a `NAME=VALUE`
    /// argument cannot change which file `compile[src/a.c]` compiles).
    public func jobEnvironment(
        forTask taskName: String, taskEnvironment: [EnvironmentEntry], instance: TaskInstance? = nil
    ) -> JobEnvironment {
        if taskEnvironment.isEmpty, !hasNamespaceDotenv(forTask: taskName) {
            guard let instance else { return JobEnvironment(shared: sharedBlock, taskName: taskName) }
            // An inherited variable of the same name must go: a second `SRC=` would be ambiguous.
            let inherited = instance.values.contains { shared[$0.name] != nil }
                ? sharedBlock.filter { entry in !instance.values.contains { Self.entry(entry, sets: $0.name) } }
                : sharedBlock
            // The instance's own entries kept apart: not a copy of the shared block per instance.
            let own = instance.values.map { $0.name + "=" + $0.value }
            return JobEnvironment(shared: inherited, own: own, taskName: taskName)
        }
        var values = variables(forTask: taskName, taskEnvironment: taskEnvironment, instance: instance)
        values["OPSRUN_TASK"] = taskName
        return JobEnvironment(values.map { "\($0.key)=\($0.value)" })
    }

    /// Whether the `NAME=VALUE` entry sets `name`.
    private static func entry(_ entry: String, sets name: String) -> Bool {
        entry.utf8.count > name.utf8.count && entry.hasPrefix(name)
            && entry.utf8[entry.utf8.index(entry.utf8.startIndex, offsetBy: name.utf8.count)] == UInt8(ascii: "=")
    }

    /// The variables `${NAME}` sees in the task's `dir`, `sources` and `outputs`. An instance's
    /// variables are set before the task's `env` (which may refer to them) and win over the rest.
    /// `problems` hears of each entry of the task's `env` whose `${NAME:?}` failed.
    public func variables(
        forTask taskName: String, taskEnvironment: [EnvironmentEntry], instance: TaskInstance? = nil,
        problems: ((ExpansionFailure) -> Void)? = nil
    ) -> [String: String] {
        var values = shared
        for layer in namespaceDotenv where Self.isTask(taskName, in: layer.prefix) {
            for (name, value) in layer.values where inherited[name] == nil && !rootNames.contains(name) {
                values[name] = value
            }
        }
        values["OPSRUN_TASK"] = taskName
        let pinned = instance?.values ?? []
        for (name, value) in pinned { values[name] = value }
        Self.apply(taskEnvironment, to: &values, overrides: overrides, pinned: pinned, problems: problems)
        for (name, value) in overrides { values[name] = value }
        for (name, value) in pinned { values[name] = value }
        return values
    }

    /// The same variables as `variables(forTask:taskEnvironment:instance:)` gives, read one at a
    /// time: without a copy of the whole environment for a task with no `env` of its own (100,000
    /// instances of one `each` task must not copy it 100,000 times).
    public func taskVariables(
        forTask taskName: String, taskEnvironment: [EnvironmentEntry], instance: TaskInstance? = nil,
        problems: ((ExpansionFailure) -> Void)? = nil
    ) -> TaskVariables {
        if taskEnvironment.isEmpty, !hasNamespaceDotenv(forTask: taskName) {
            return TaskVariables(pinned: instance?.values ?? [], taskName: taskName, values: shared)
        }
        return TaskVariables(
            pinned: [], taskName: nil,
            values: variables(forTask: taskName, taskEnvironment: taskEnvironment, instance: instance, problems: problems))
    }

    private static func apply(
        _ entries: [EnvironmentEntry], to values: inout [String: String],
        overrides: [(name: String, value: String)], pinned: [(name: String, value: String)] = [],
        problems: ((ExpansionFailure) -> Void)? = nil
    ) {
        for entry in entries {
            do {
                values[entry.name] = try Interpolation.expand(entry.value) { name in
                    pinned.first(where: { $0.name == name })?.value
                        ?? overrides.last(where: { $0.name == name })?.value ?? values[name]
                }
            } catch {
                values[entry.name] = entry.value
                problems?(ExpansionFailure(template: entry.value, location: entry.location, entry: entry.name, problem: error))
            }
        }
    }
}

/// A value whose expansion failed at run time (`${NAME:?message}`), with what an error needs.
public struct ExpansionFailure: Sendable {
    /// The value as written.
    public var template: String
    /// Where it is written (for an `env` entry, its key's place).
    public var location: SourceLocation
    /// The `env` entry it is the value of, if it is one.
    public var entry: String?
    public var problem: Interpolation.Problem

    public init(template: String, location: SourceLocation, entry: String? = nil, problem: Interpolation.Problem) {
        self.template = template
        self.location = location
        self.entry = entry
        self.problem = problem
    }
}

/// What `${NAME}` reads for one task: an instance's own values first, then its variables.
public struct TaskVariables: Sendable {
    /// An instance's values, when they are not in `values` already.
    let pinned: [(name: String, value: String)]
    /// `OPSRUN_TASK`, when it is not in `values` already.
    let taskName: String?
    let values: [String: String]

    public subscript(name: String) -> String? {
        for entry in pinned where entry.name == name { return entry.value }
        if let taskName, name == "OPSRUN_TASK" { return taskName }
        return values[name]
    }

    /// `text` with `${...}` expanded in all the shell's forms (docs/manual/variables.md): the one place a
    /// task's `dir`, `sources`, `outputs` and `each` values are expanded. Throws for a form that
    /// is not supported and for `${NAME:?message}` with NAME unset or empty.
    public func expand(_ text: String) throws(Interpolation.Problem) -> String {
        guard UTF8Text.contains(UInt8(ascii: "$"), in: text) else { return text }
        return try Interpolation.expand(text) { self[$0] }
    }

    /// `expand` for a value already checked (the loader reports what does not parse, and a run
    /// checks `${NAME:?}` before anything starts, `RequiredVariables`): a problem gives the value
    /// as written.
    public func expandChecked(_ text: String) -> String {
        guard UTF8Text.contains(UInt8(ascii: "$"), in: text) else { return text }
        return Interpolation.expandChecked(text) { self[$0] }
    }

    /// `expandChecked`, keeping the parsed template in `parsed` for the next instance of the
    /// same `each` task (they share their templates).
    func expandChecked(_ text: String, parsed: inout [String: Interpolation.Template]) -> String {
        guard UTF8Text.contains(UInt8(ascii: "$"), in: text) else { return text }
        if parsed[text] == nil { parsed[text] = try? Interpolation.Template(text) }
        return (try? parsed[text]?.expand { self[$0] }) ?? text
    }
}
