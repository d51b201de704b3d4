import OpsrunEngine
import OpsrunManifest
/// The environment each task's commands see, layered as SPEC §2 says: opsrun's own, then the
/// `dotenv` files, then the manifest's `env`, then the task's `env`, then `NAME=VALUE` arguments,
/// plus `OPSRUN_TASK`.
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

    public init(
        processEnvironment: [String: String], dotenv: [(name: String, value: String)],
        manifestEnvironment: [EnvironmentEntry], overrides: [(name: String, value: String)]
    ) {
        var values = processEnvironment
        for (name, value) in dotenv { values[name] = value }
        Self.apply(manifestEnvironment, to: &values, overrides: overrides)
        for (name, value) in overrides { values[name] = value }
        shared = values
        self.overrides = overrides
        sharedBlock = values.map { "\($0.key)=\($0.value)" }
    }

    /// The names set by `NAME=VALUE` arguments.
    public var overrideNames: [String] { overrides.map(\.name) }

    /// The complete environment of `taskName`'s commands (`entries` as `NAME=VALUE`), with the
    /// shared block shared rather than copied when the task adds no `env`. An instance of an `each`
    /// task (`instance`) also has its variables, which win over every other layer (a `NAME=VALUE`
    /// argument cannot change which file `compile[src/a.c]` compiles).
    public func jobEnvironment(
        forTask taskName: String, taskEnvironment: [EnvironmentEntry], instance: TaskInstance? = nil
    ) -> JobEnvironment {
        if taskEnvironment.isEmpty {
            guard let instance else { return JobEnvironment(shared: sharedBlock, taskName: taskName) }
            // An inherited variable of the same name must go: a second `SRC=` would be ambiguous.
            let inherited = instance.values.contains { shared[$0.name] != nil }
                ? sharedBlock.filter { entry in !instance.values.contains { Self.entry(entry, sets: $0.name) } }
                : sharedBlock
            let own = instance.values.map { $0.name + "=" + $0.value }
            return JobEnvironment(shared: inherited + own, taskName: taskName)
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
    public func variables(
        forTask taskName: String, taskEnvironment: [EnvironmentEntry], instance: TaskInstance? = nil
    ) -> [String: String] {
        var values = shared
        values["OPSRUN_TASK"] = taskName
        let pinned = instance?.values ?? []
        for (name, value) in pinned { values[name] = value }
        Self.apply(taskEnvironment, to: &values, overrides: overrides, pinned: pinned)
        for (name, value) in overrides { values[name] = value }
        for (name, value) in pinned { values[name] = value }
        return values
    }

    /// The same variables as `variables(forTask:taskEnvironment:instance:)` gives, read one at a
    /// time: without a copy of the whole environment for a task with no `env` of its own (100,000
    /// instances of one `each` task must not copy it 100,000 times).
    public func taskVariables(
        forTask taskName: String, taskEnvironment: [EnvironmentEntry], instance: TaskInstance? = nil
    ) -> TaskVariables {
        if taskEnvironment.isEmpty {
            return TaskVariables(pinned: instance?.values ?? [], taskName: taskName, values: shared)
        }
        return TaskVariables(
            pinned: [], taskName: nil,
            values: variables(forTask: taskName, taskEnvironment: taskEnvironment, instance: instance))
    }

    private static func apply(
        _ entries: [EnvironmentEntry], to values: inout [String: String],
        overrides: [(name: String, value: String)], pinned: [(name: String, value: String)] = []
    ) {
        for entry in entries {
            let expanded = Interpolation.expand(entry.value) { name in
                pinned.first(where: { $0.name == name })?.value
                    ?? overrides.last(where: { $0.name == name })?.value ?? values[name]
            }
            values[entry.name] = expanded
        }
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

    /// `text` with `${NAME}` expanded (SPEC §2, §10): the one place a task's `dir`, `sources`,
    /// `outputs` and `each` values are expanded.
    public func expand(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "$")) else { return text }
        return Interpolation.expand(text) { self[$0] }
    }
}
