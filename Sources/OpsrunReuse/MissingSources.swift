import OpsrunCore
import OpsrunIncremental
// A source named without wildcards that does not exist is most often a misspelling
// (`inc/cofnig.h`): taken silently, the dependency it was meant to declare is lost. make stops
// with "No rule to make target" when it reaches such a target, before running its recipe; opsrun
// does the same at the same moment: when the task is ready (its prerequisites have run, and may
// well have made the file), the task fails without starting, its dependents are cancelled, and the
// rest of the run goes as after any failure. A path that a task of the run declares as an output
// is not an error: it will exist once that task runs (in a dry run, nothing does).

/// Tells a missing source that is a mistake from one the run will make, and words the error.
struct MissingSources {
    private let tasks: [IncrementalTaskSpec]
    private let locate: (_ task: Int, _ source: Int) -> SourceLocation?
    /// Where a near name is looked for: the run's files.
    private let files: any FileAccess
    /// Made the first time a source is missing.
    private var declared: DeclaredOutputs?

    /// `locate` gives the place in the manifest of the `source`th `sources` entry of a task.
    init(
        tasks: [IncrementalTaskSpec], files: any FileAccess,
        locate: @escaping (_ task: Int, _ source: Int) -> SourceLocation?
    ) {
        self.tasks = tasks
        self.files = files
        self.locate = locate
    }

    /// The first of `missing` (source patterns of task `index`) that no task of the run declares
    /// as an output, with the error that says so; `nil` when each of them is declared.
    mutating func error(forTask index: Int, missing: [String]) -> (source: String, error: Diagnostic)? {
        let task = tasks[index]
        let declared = self.declared ?? DeclaredOutputs(of: tasks)
        self.declared = declared
        guard let text = missing.first(where: { !declared.contains(source: $0, of: task) }) else { return nil }
        let location = task.sources.firstIndex(of: text).flatMap { locate(index, $0) }
        let near = GlobPattern.nearestExisting(to: text, in: task.absoluteDirectory, files: files)
        let error = Diagnostic(
            .error, at: location,
            "task '\(task.name)': source '\(text)' does not exist, and no task of this run makes it"
                + (near.map { "; did you mean '\($0)'?" } ?? ""))
        return (text, error)
    }
}
