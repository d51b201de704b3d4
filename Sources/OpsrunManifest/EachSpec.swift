import OpsrunCore
/// `each:` of a task (docs/manual/each.md): one operation per value, or per combination of values.
///
/// The manifest keeps it as written; a glob is expanded when a run starts (`TaskInstances`, in the
/// plan layer, which may read the file system), never here.
public struct EachSpec: Equatable, Sendable {
    /// The variables in the order written: the first varies slowest, the last fastest.
    public var variables: [EachVariable]
    /// Where the `each` mapping is written.
    public var location: SourceLocation

    public init(variables: [EachVariable], location: SourceLocation) {
        self.variables = variables
        self.location = location
    }

    /// The variables' names, in order.
    public var names: [String] { variables.map { $0.name } }
}

/// One key of `each`: a variable and where its values come from.
public struct EachVariable: Equatable, Sendable {
    public var name: String
    /// Where the key is written.
    public var location: SourceLocation
    public var values: EachValues

    public init(name: String, location: SourceLocation, values: EachValues) {
        self.name = name
        self.location = location
        self.values = values
    }
}

/// Where an `each` variable's values come from.
public enum EachValues: Equatable, Sendable {
    /// A string: a glob relative to the task's `dir`, one value per file it matches, sorted.
    case glob(Located<String>)
    /// A list: these values, in the order written.
    case list([Located<String>])
}

/// What makes an instance of an `each` task (`compile[src/a.c]`) the one it is.
public struct TaskInstance: Equatable, Sendable {
    /// The task as declared (`compile`).
    public var task: String
    /// The value of each `each` variable, in the order the variables are written.
    public var values: [(name: String, value: String)]

    public init(task: String, values: [(name: String, value: String)]) {
        self.task = task
        self.values = values
    }

    public static func == (a: TaskInstance, b: TaskInstance) -> Bool {
        a.task == b.task && a.values.elementsEqual(b.values) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The instance's name: `compile[src/a.c]` for one variable, `test[OS=linux,PY=3.11]` for
    /// several. Declared task names never hold `[`, so no instance name is ever a declared one.
    public var name: String { Self.name(task: task, values: values) }

    public static func name(task: String, values: [(name: String, value: String)]) -> String {
        if values.count == 1 { return task + "[" + values[0].value + "]" }
        var name = task + "["
        for (k, entry) in values.enumerated() {
            if k > 0 { name += "," }
            name += entry.name + "=" + entry.value
        }
        return name + "]"
    }
}
