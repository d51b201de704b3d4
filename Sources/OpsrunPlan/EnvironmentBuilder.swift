import OpsrunCore
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
    /// The manifest's `env` entries whose `${NAME:?message}` found NAME unset or empty (SPEC §10);
    /// such an entry's value is left as written. A run reports them before anything starts.
    public private(set) var sharedProblems: [ExpansionFailure] = []

    public init(
        processEnvironment: [String: String], dotenv: [(name: String, value: String)],
        manifestEnvironment: [EnvironmentEntry], overrides: [(name: String, value: String)]
    ) {
        var values = processEnvironment
        for (name, value) in dotenv { values[name] = value }
        var problems: [ExpansionFailure] = []
        Self.apply(manifestEnvironment, to: &values, overrides: overrides) { problems.append($0) }
        for (name, value) in overrides { values[name] = value }
        shared = values
        sharedProblems = problems
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

    /// The variables `${NAME}` sees in the task's `dir`, `sources` and `outputs`. `problems`
    /// hears of each entry of the task's `env` whose `${NAME:?}` failed.
    public func variables(
        forTask taskName: String, taskEnvironment: [EnvironmentEntry],
        problems: ((ExpansionFailure) -> Void)? = nil
    ) -> [String: String] {
        var values = shared
        values["OPSRUN_TASK"] = taskName
        Self.apply(taskEnvironment, to: &values, overrides: overrides, problems: problems)
        for (name, value) in overrides { values[name] = value }
        return values
    }

    private static func apply(
        _ entries: [EnvironmentEntry], to values: inout [String: String],
        overrides: [(name: String, value: String)], problems: ((ExpansionFailure) -> Void)? = nil
    ) {
        for entry in entries {
            do {
                values[entry.name] = try Interpolation.expand(entry.value) { name in
                    overrides.last(where: { $0.name == name })?.value ?? values[name]
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
