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
    /// shared block shared rather than copied when the task adds no `env`.
    public func jobEnvironment(forTask taskName: String, taskEnvironment: [EnvironmentEntry]) -> JobEnvironment {
        if taskEnvironment.isEmpty { return JobEnvironment(shared: sharedBlock, taskName: taskName) }
        var values = variables(forTask: taskName, taskEnvironment: taskEnvironment)
        values["OPSRUN_TASK"] = taskName
        return JobEnvironment(values.map { "\($0.key)=\($0.value)" })
    }

    /// The variables `${NAME}` sees in the task's `dir`, `sources` and `outputs`.
    public func variables(forTask taskName: String, taskEnvironment: [EnvironmentEntry]) -> [String: String] {
        var values = shared
        values["OPSRUN_TASK"] = taskName
        Self.apply(taskEnvironment, to: &values, overrides: overrides)
        for (name, value) in overrides { values[name] = value }
        return values
    }

    private static func apply(
        _ entries: [EnvironmentEntry], to values: inout [String: String],
        overrides: [(name: String, value: String)]
    ) {
        for entry in entries {
            let expanded = Interpolation.expand(entry.value) { name in
                overrides.last(where: { $0.name == name })?.value ?? values[name]
            }
            values[entry.name] = expanded
        }
    }
}
