// What the state remembers of a task's last successful run. Besides the fingerprint it keeps the
// per-file digests (so `--explain` can name the source that changed) and the digests of the task's
// own outputs as it left them. The latter make a record a self-checking claim — "with these inputs,
// the task produced these bytes" — which stays true however old the record is: if a newer run's
// record is lost (a crash, a torn write) and the inputs are reverted, an older record only says "up
// to date" if the outputs are again exactly the bytes it describes.

/// The last successful run of a task, as recorded after it finished and its outputs were hashed.
public struct TaskRecord: Hashable, Sendable {
    public var fingerprint: Fingerprint
    /// Sorted by path.
    public var sources: [FileDigest]
    /// Sorted by task name, each sorted by path.
    public var prerequisiteOutputs: [PrerequisiteOutputs]
    /// The task's own outputs that existed when it finished, sorted by path.
    public var outputs: [FileDigest]
    /// For a task with a depfile, what it listed; its files are among `sources`.
    public var depfile: DepfileRecord?

    /// The record of a run with `input` (whose sources include the depfile's) that left `outputs`.
    public init(input: TaskDefinitionInput, outputs: [FileDigest], depfile: DepfileRecord? = nil) {
        let canonical = input.canonical
        self.init(
            fingerprint: Fingerprint(canonical: canonical), sources: canonical.sources,
            prerequisiteOutputs: canonical.prerequisiteOutputs,
            outputs: TaskDefinitionInput.sortedFiles(outputs), depfile: depfile)
    }

    init(
        fingerprint: Fingerprint, sources: [FileDigest], prerequisiteOutputs: [PrerequisiteOutputs], outputs: [FileDigest],
        depfile: DepfileRecord? = nil
    ) {
        self.fingerprint = fingerprint
        self.sources = sources
        self.prerequisiteOutputs = prerequisiteOutputs
        self.outputs = outputs
        self.depfile = depfile
    }
}

/// What the state knows of a task.
public enum TaskEntry: Hashable, Sendable {
    /// Its last run succeeded and left this record.
    case succeeded(TaskRecord)
    /// A run started after its last recorded success and did not record one: it failed, was
    /// interrupted, or opsrun died. Whatever the old record said no longer holds.
    case unfinished
}
