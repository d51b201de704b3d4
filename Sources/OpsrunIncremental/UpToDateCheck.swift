// The up-to-date decision is a pure function of values the caller gathered (current inputs, current
// outputs, the stored entry), so every reason is unit-tested without touching a disk, and the order in
// which reasons are looked for is written once, here:
//   forced; for a task without sources, no outputs at all (it always runs) or a missing one; then no
//   record, an unfinished last run, a missing output (a glob's match gone since included), a depfile
//   that told nothing last time (never read, not written, malformed), commands,
//   environment, directory, each source by path, each prerequisite by name, and last an output whose
//   bytes are not those the record describes (only for a task with sources: without them, outputs
//   count by existence, as make's file targets do, so a fetched file replaced by hand stays).
// The first reason found is the one `--explain` prints, so the most telling comes first.

import OpsrunCore

/// Why a task runs, in the words `--explain` prints.
public enum RunReason: Hashable, Sendable, CustomStringConvertible {
    case forced
    case hasNoSources
    case noRecord
    case lastRunDidNotSucceed
    case outputMissing(String)
    case outputChanged(String)
    case commandChanged
    /// `opsrun TASK -- ARG...` gave arguments where its last run had none.
    case argumentsAdded
    /// The commands' digest covers their arguments too: which of them changed is not known.
    case commandOrArgumentsChanged
    case environmentChanged
    /// The environment is the recorded one with this variable added (`opsrun NAME=VALUE`, an
    /// `env` entry written since).
    case variableAdded(String)
    case directoryChanged
    case sourceChanged(String)
    /// A file its depfile listed changed while its last run ran (or in the clock tick it started
    /// in): what the command read is unknown, so its content could not be recorded.
    case sourceNotTrusted(String)
    case sourceAdded(String)
    case sourceRemoved(String)
    case prerequisiteWroteDifferentOutputs(String)
    case prerequisiteAdded(String)
    case prerequisiteRemoved(String)
    /// The task has a depfile, and no record of what it listed (`depfile` was just added).
    case depfileNotRead(String)
    /// Its last run succeeded without writing its depfile.
    case depfileNotWritten(String)
    /// Its depfile could not be read after its last run, or was not a dependency file.
    case depfileMalformed(String)
    /// Only in a dry run: the prerequisite would run first, so what it writes is not known yet.
    case prerequisiteRunsFirst(String)
    /// A task without sources: the prerequisite ran in this run, and what it wrote is unknown.
    case prerequisiteRanWithoutOutputs(String)
    /// A group: one of its prerequisites ran.
    case prerequisiteRan(String)
    /// The fingerprint differs although no part does: the fingerprint's own format changed.
    case definitionChanged
    /// A termination signal arrived while its files were read: nothing is known, nothing starts.
    case interrupted

    /// Paths are shown with their control characters escaped: a file name may hold anything.
    public var description: String {
        func shown(_ path: String) -> String { TerminalText.escapingControlCharacters(path) }
        return switch self {
        case .forced: "forced (-B)"
        case .hasNoSources: "it has no sources"
        case .noRecord: "no record of a previous run"
        case .lastRunDidNotSucceed: "its last run did not succeed"
        case .outputMissing(let path): "output \(shown(path)) missing"
        case .outputChanged(let path): "output \(shown(path)) changed since its last run"
        case .commandChanged: "command changed"
        case .argumentsAdded: "arguments after -- given"
        case .commandOrArgumentsChanged: "command or arguments after -- changed"
        case .environmentChanged: "environment changed"
        case .variableAdded(let name): "variable \(name) added to its environment"
        case .directoryChanged: "directory changed"
        case .sourceChanged(let path): "source \(shown(path)) changed"
        case .sourceNotTrusted(let path):
            "source \(shown(path)) was written while its last run ran, so its content cannot be trusted"
        case .sourceAdded(let path): "source \(shown(path)) added"
        case .sourceRemoved(let path): "source \(shown(path)) removed"
        case .prerequisiteWroteDifferentOutputs(let task): "prerequisite \(task) wrote different outputs"
        case .prerequisiteAdded(let task): "prerequisite \(task) added"
        case .prerequisiteRemoved(let task): "prerequisite \(task) removed"
        case .depfileNotRead(let path): "its depfile \(shown(path)) was never read"
        case .depfileNotWritten(let path): "its last run did not write its depfile \(shown(path))"
        case .depfileMalformed(let path): "its depfile \(shown(path)) could not be read after its last run"
        case .prerequisiteRunsFirst(let task): "prerequisite \(task) runs first"
        case .prerequisiteRanWithoutOutputs(let task): "prerequisite \(task) ran and declares no outputs"
        case .prerequisiteRan(let task): "prerequisite \(task) ran"
        case .definitionChanged: "its definition changed"
        case .interrupted: "interrupted while its files were read"
        }
    }
}

/// Why a task is skipped.
public enum UpToDateReason: Hashable, Sendable, CustomStringConvertible {
    /// Nothing that defines it changed since its last successful run, and its outputs are as it left them.
    case unchanged
    /// A group whose prerequisites were all up to date.
    case prerequisitesUpToDate

    public var description: String {
        switch self {
        case .unchanged: "up to date"
        case .prerequisitesUpToDate: "up to date: so are its prerequisites"
        }
    }
}

/// The decision for one task.
public enum UpToDateVerdict: Hashable, Sendable, CustomStringConvertible {
    case upToDate(UpToDateReason)
    case mustRun(RunReason)

    public var isUpToDate: Bool { if case .upToDate = self { true } else { false } }

    public var description: String {
        switch self {
        case .upToDate(let reason): reason.description
        case .mustRun(let reason): reason.description
        }
    }
}

/// One declared output as it is now: its digest, or `nil` when it is missing.
public struct OutputState: Hashable, Sendable {
    public var path: String
    public var digest: ContentDigest?

    public init(path: String, digest: ContentDigest?) {
        self.path = path
        self.digest = digest
    }
}

/// Decides whether a task is up to date (docs/manual/up-to-date.md).
public enum UpToDateCheck {
    /// - Parameters:
    ///   - input: the task's definition resolved to content now.
    ///   - declaresSources: the task has `sources:` (even if they match nothing at the moment).
    ///   - outputs: every declared output, in declared order, as it is now.
    ///   - entry: what the state remembers of the task.
    ///   - force: `-B`.
    ///   - depfile: the task's depfile, if it has one (its files are in `input.sources` already).
    public static func verdict(
        for input: TaskDefinitionInput, declaresSources: Bool, outputs: [OutputState],
        entry: TaskEntry?, force: Bool, depfile: String? = nil
    ) -> UpToDateVerdict {
        verdict(
            for: input, declaresSources: declaresSources, outputs: outputs, entry: entry, force: force, depfile: depfile,
            parts: nil)
    }

    /// The same, reusing the environment and directory digests of the previous task when they are
    /// the same (`parts`).
    static func verdict(
        for input: TaskDefinitionInput, declaresSources: Bool, outputs: [OutputState],
        entry: TaskEntry?, force: Bool, depfile: String?, parts: FingerprintParts?
    ) -> UpToDateVerdict {
        if force { return .mustRun(.forced) }
        let missing = outputs.first { $0.digest == nil }
        if !declaresSources {
            if outputs.isEmpty { return .mustRun(.hasNoSources) }
            if let missing { return .mustRun(.outputMissing(missing.path)) }
        }
        guard let entry else { return .mustRun(.noRecord) }
        guard case .succeeded(let record) = entry else { return .mustRun(.lastRunDidNotSucceed) }
        if let missing { return .mustRun(.outputMissing(missing.path)) }
        if let gone = firstGone(recorded: record.outputs, current: outputs) { return .mustRun(.outputMissing(gone)) }
        if let depfile {
            switch record.depfile?.problem {
            case _ where record.depfile == nil: return .mustRun(.depfileNotRead(depfile))
            case .missing?: return .mustRun(.depfileNotWritten(depfile))
            case .malformed?: return .mustRun(.depfileMalformed(depfile))
            case nil: break
            }
        }

        let canonical = input.canonical
        let changedOutput = !declaresSources ? nil : firstChanged(recorded: record.outputs, current: outputs)
        if changedOutput == nil, Fingerprint.matches(canonical, record: record, parts: parts) {
            return .upToDate(.unchanged)
        }

        // Something differs: the parts say what.
        let fingerprint = Fingerprint(canonical: canonical, parts: parts)
        if fingerprint.commands != record.fingerprint.commands {
            if canonical.arguments.isEmpty { return .mustRun(.commandChanged) }
            let withoutArguments = Fingerprint.commandsDigest(of: canonical.commands, arguments: [])
            return .mustRun(withoutArguments == record.fingerprint.commands ? .argumentsAdded : .commandOrArgumentsChanged)
        }
        if fingerprint.environment != record.fingerprint.environment {
            let added = Fingerprint.addedVariable(in: canonical.environment, recorded: record.fingerprint.environment)
            return .mustRun(added.map { .variableAdded($0) } ?? .environmentChanged)
        }
        if fingerprint.directory != record.fingerprint.directory { return .mustRun(.directoryChanged) }
        if let reason = firstDifference(recorded: record.sources, current: canonical.sources) {
            return .mustRun(reason)
        }
        if let reason = firstDifference(recorded: record.prerequisiteOutputs, current: canonical.prerequisiteOutputs) {
            return .mustRun(reason)
        }
        if let changedOutput { return .mustRun(.outputChanged(changedOutput.path)) }
        return .mustRun(.definitionChanged)
    }

    /// The first output the record lists that the outputs now do not (a file an `outputs` glob
    /// matched, deleted since). Both are short, and a task found up to date has every one of them.
    private static func firstGone(recorded: [FileDigest], current: [OutputState]) -> String? {
        // The common case, every recorded output in the same place now: nothing is gone.
        if recorded.count <= current.count {
            var index = 0
            while index < recorded.count, recorded[index].path == current[index].path { index += 1 }
            if index == recorded.count { return nil }
        }
        let paths = Set(current.map { $0.path })
        return recorded.first { !paths.contains($0.path) }?.path
    }

    /// The first output now whose digest is not the one recorded for its path. Side by side while
    /// both list the same paths in the same order (nearly always); by path otherwise, so that an
    /// output directory of a thousand files is not a million comparisons.
    private static func firstChanged(recorded: [FileDigest], current: [OutputState]) -> OutputState? {
        var index = 0
        while index < current.count, index < recorded.count, recorded[index].path == current[index].path {
            if recorded[index].digest != current[index].digest { return current[index] }
            index += 1
        }
        if index == current.count { return nil }
        var byPath: [String: ContentDigest] = [:]
        for file in recorded { byPath[file.path] = byPath[file.path] ?? file.digest }
        return current[index...].first { byPath[$0.path] != $0.digest }
    }

    /// The first source, in path order, that changed, appeared or disappeared.
    private static func firstDifference(recorded: [FileDigest], current: [FileDigest]) -> RunReason? {
        var old = recorded.startIndex
        var new = current.startIndex
        // Both are sorted by path: walk them side by side.
        while old < recorded.endIndex || new < current.endIndex {
            if new == current.endIndex
                || (old < recorded.endIndex && TaskDefinitionInput.bytewise(recorded[old].path, current[new].path)) {
                return .sourceRemoved(recorded[old].path)
            }
            if old == recorded.endIndex || recorded[old].path != current[new].path {
                return .sourceAdded(current[new].path)
            }
            if recorded[old].digest != current[new].digest {
                return recorded[old].digest == .untrusted ? .sourceNotTrusted(current[new].path) : .sourceChanged(current[new].path)
            }
            old += 1
            new += 1
        }
        return nil
    }

    /// The first prerequisite, by name, whose outputs differ, or that was added or removed.
    private static func firstDifference(recorded: [PrerequisiteOutputs], current: [PrerequisiteOutputs]) -> RunReason? {
        let old = Dictionary(recorded.map { ($0.task, $0.outputs) }, uniquingKeysWith: { a, _ in a })
        let new = Dictionary(current.map { ($0.task, $0.outputs) }, uniquingKeysWith: { a, _ in a })
        for name in Set(old.keys).union(new.keys).sorted(by: TaskDefinitionInput.bytewise) {
            switch (old[name], new[name]) {
            case (nil, _): return .prerequisiteAdded(name)
            case (_, nil): return .prerequisiteRemoved(name)
            case let (before?, now?) where before != now: return .prerequisiteWroteDifferentOutputs(name)
            default: continue
            }
        }
        return nil
    }
}
