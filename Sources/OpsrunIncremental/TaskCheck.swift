/// What `IncrementalRun.check` found; hand it back to `willRun`, `succeeded` or `failed`.
public struct TaskCheck: Sendable {
    public let task: IncrementalTaskSpec
    public let verdict: UpToDateVerdict
    /// Source patterns without wildcards that name nothing now; the driver makes it an error unless
    /// a task of the run declares the path as an output (`MissingSources`).
    public let missingSources: [String]
    /// Sources that are neither files nor directories (a named pipe, a device): nothing was read
    /// from them, and the driver makes each an error (docs/manual/up-to-date.md).
    public let specialSources: [SpecialSource]
    /// The inputs as hashed at check time: what a success records.
    let input: TaskDefinitionInput
    /// The files the task's depfile listed after its last success, as recorded (`nil` without a
    /// depfile or a record of it); their digests are in `input`'s sources.
    public let depfileInputs: [String]?
    /// `input`'s sources that the `sources` patterns matched (the rest came from the depfile).
    let declaredSources: [FileDigest]
}

/// A source that is neither a regular file nor a directory: nothing is read from it.
public struct SpecialSource: Hashable, Sendable {
    /// As the task names it (relative to its directory, or absolute).
    public let path: String
    /// In words: "a named pipe", "a device", "a socket".
    public let kind: String
    /// The `sources` entry that found it, or `nil` when the task's depfile listed it.
    public let pattern: String?
}
