import OpsrunCore
/// One task as the up-to-date bookkeeping needs it: the manifest's values with variables expanded.
///
/// A value, kept in one shared box (copied on write): each check hands its task on (in the
/// `TaskCheck` it returns), and copying eight strings and arrays, one reference count each, cost as
/// much per task as the rest of a no-op check's bookkeeping.
public struct IncrementalTaskSpec: Sendable {
    private struct Fields {
        var name: String
        var commands: [String]
        var arguments: [String]
        var environment: [EnvironmentVariable]
        var directory: String
        var absoluteDirectory: String
        var sources: [String]
        var outputs: [String]
        var depfile: String?
        var prerequisites: [String]
        var isService = false
        var cleanup: [String] = []
        var shell: [String] = []
    }

    /// Mutated only while uniquely referenced (`fields`' setter copies it first otherwise).
    private final class Box: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    // Getters read `box.fields.name`, not `fields.name`: the latter copies all thirteen fields (a
    // retain and a release each) to read one.
    private var fields: Fields {
        get { box.fields }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            yield &box.fields
        }
    }

    public var name: String {
        get { box.fields.name }
        set { fields.name = newValue }
    }
    public var commands: [String] {
        get { box.fields.commands }
        set { fields.commands = newValue }
    }
    /// `opsrun TASK -- ARG...`: the arguments its commands get; part of what defines it.
    public var arguments: [String] {
        get { box.fields.arguments }
        set { fields.arguments = newValue }
    }
    /// The variables that apply to the task with their final values (see `TaskDefinitionInput`).
    public var environment: [EnvironmentVariable] {
        get { box.fields.environment }
        set { fields.environment = newValue }
    }
    /// The working directory as written, relative to the manifest's directory: `.` by default.
    public var directory: String {
        get { box.fields.directory }
        set { fields.directory = newValue }
    }
    /// The absolute working directory: the base of `sources` and `outputs`.
    public var absoluteDirectory: String {
        get { box.fields.absoluteDirectory }
        set { fields.absoluteDirectory = newValue }
    }
    /// Patterns, relative to `absoluteDirectory`. A pattern without wildcards naming a directory
    /// stands for every file beneath it.
    public var sources: [String] {
        get { box.fields.sources }
        set { fields.sources = newValue }
    }
    /// Paths (or patterns), relative to `absoluteDirectory`.
    public var outputs: [String] {
        get { box.fields.outputs }
        set { fields.outputs = newValue }
    }
    /// The dependency file its commands write, relative to `absoluteDirectory`: the files it lists
    /// are more sources, recorded after each success (docs/manual/depfiles.md).
    public var depfile: String? {
        get { box.fields.depfile }
        set { fields.depfile = newValue }
    }
    /// Direct prerequisites by name.
    public var prerequisites: [String] {
        get { box.fields.prerequisites }
        set { fields.prerequisites = newValue }
    }

    /// `cleanup:` commands: part of what defines the task.
    public var cleanup: [String] {
        get { box.fields.cleanup }
        set { fields.cleanup = newValue }
    }
    /// The interpreter's words when it is not the default `sh` (`shell: bash`): part of what
    /// defines the task.
    public var shell: [String] {
        get { box.fields.shell }
        set { fields.shell = newValue }
    }

    /// The commands as they define the task: `commands`, then its cleanup and its shell after
    /// markers no command can be (a command cannot hold a NUL byte). Without either, `commands`
    /// itself, so most tasks' checks build no array.
    public var definingCommands: [String] {
        if box.fields.cleanup.isEmpty && box.fields.shell.isEmpty { return box.fields.commands }
        let fields = box.fields
        var result = fields.commands
        if !fields.cleanup.isEmpty { result += ["\u{0}cleanup"] + fields.cleanup }
        if !fields.shell.isEmpty { result += ["\u{0}shell"] + fields.shell }
        return result
    }

    /// A service (docs/manual/ci.md) writes nothing its dependents read: that it runs never makes them run.
    public var isService: Bool {
        get { box.fields.isService }
        set { fields.isService = newValue }
    }

    public init(
        name: String, commands: [String], arguments: [String] = [], environment: [EnvironmentVariable] = [],
        directory: String = ".",
        absoluteDirectory: String, sources: [String] = [], outputs: [String] = [], depfile: String? = nil,
        prerequisites: [String] = []
    ) {
        box = Box(Fields(
            name: name, commands: commands, arguments: arguments, environment: environment, directory: directory,
            absoluteDirectory: absoluteDirectory, sources: sources, outputs: outputs, depfile: depfile,
            prerequisites: prerequisites))
    }

    /// Whether the task says what it reads: `sources`, or a depfile that lists them.
    public var declaresInputs: Bool { !sources.isEmpty || depfile != nil }
}

extension IncrementalTaskSpec {
    /// The absolute parent directories of the outputs written without wildcards, each once
    /// (`Directories.parents(ofOutputs:in:)`).
    public var outputDirectories: [String] { Directories.parents(ofOutputs: outputs, in: absoluteDirectory) }
}
