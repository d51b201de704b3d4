/// What `IncrementalRun.check` found; hand it back to `willRun`, `succeeded` or `failed`.
public struct TaskCheck: Sendable {
    public let task: IncrementalTaskSpec
    public let verdict: UpToDateVerdict
    /// Source patterns without wildcards that name nothing now; the driver makes it an error unless
    /// a task of the run declares the path as an output (`MissingSources`).
    public let missingSources: [String]
    /// The inputs as hashed at check time: what a success records.
    let input: TaskDefinitionInput
    /// The files the task's depfile listed after its last success, as recorded (`nil` without a
    /// depfile or a record of it); their digests are in `input`'s sources.
    public let depfileInputs: [String]?
    /// `input`'s sources that the `sources` patterns matched (the rest came from the depfile).
    let declaredSources: [FileDigest]
}
