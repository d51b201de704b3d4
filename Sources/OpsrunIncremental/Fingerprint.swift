// A task's fingerprint is SHA-256 over a canonical, length-prefixed encoding of everything that
// defines it (docs/manual/up-to-date.md): its commands, the environment variables that apply to it, its directory, the
// content of each source and the content of each prerequisite's outputs. Prerequisites enter by the
// content of what they wrote, not by whether they ran: a prerequisite that rewrote identical bytes
// leaves its dependents' fingerprints alone (early cutoff).
//
// Besides the whole, the parts that cannot be named file by file (commands, environment, directory)
// get digests of their own, so that `--explain` can say which one changed; sources and prerequisite
// outputs are kept in the record path by path for the same reason. The whole hashes the commands'
// text rather than their digest, so a task found up to date costs one SHA-256, not two.

import OpsrunCore

/// An environment variable as the task's commands see it.
public struct EnvironmentVariable: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A file (as the manifest names it) and the digest of its content.
public struct FileDigest: Hashable, Sendable {
    public var path: String
    public var digest: ContentDigest

    public init(path: String, digest: ContentDigest) {
        self.path = path
        self.digest = digest
    }
}

/// The outputs one prerequisite left, by content.
public struct PrerequisiteOutputs: Hashable, Sendable {
    public var task: String
    public var outputs: [FileDigest]

    public init(task: String, outputs: [FileDigest]) {
        self.task = task
        self.outputs = outputs
    }
}

/// Everything that defines a task for the up-to-date check, already resolved to content.
public struct TaskDefinitionInput: Hashable, Sendable {
    /// The commands, in order, as written.
    public var commands: [String]
    /// `opsrun TASK -- ARG...`: the commands' positional parameters. They count with the commands
    /// (in their digest), and add nothing to it when there are none, so records made before
    /// arguments existed still match.
    public var arguments: [String]
    /// The variables that apply to this task with their final values: the manifest's `env`, the
    /// task's `env` and `NAME=VALUE` arguments, expanded. Not the whole inherited environment: a
    /// changed `PATH` or terminal size must not rebuild everything. Order does not matter; for a
    /// name given twice the last value counts.
    public var environment: [EnvironmentVariable]
    /// The working directory as the manifest defines it, relative to the manifest (`.` by default),
    /// so that moving the whole project does not make every task run.
    public var directory: String
    /// Every file the source patterns matched now, with its content digest (order does not matter).
    public var sources: [FileDigest]
    /// Each direct prerequisite (a group stands for its own prerequisites) with its outputs' digests.
    public var prerequisiteOutputs: [PrerequisiteOutputs]

    public init(
        commands: [String], arguments: [String] = [], environment: [EnvironmentVariable] = [],
        directory: String = ".", sources: [FileDigest] = [], prerequisiteOutputs: [PrerequisiteOutputs] = []
    ) {
        self.commands = commands
        self.arguments = arguments
        self.environment = environment
        self.directory = directory
        self.sources = sources
        self.prerequisiteOutputs = prerequisiteOutputs
    }

    /// The same definition in its one canonical form: environment by name (last value wins), files
    /// by path, prerequisites by name. Two inputs that mean the same thing are equal in this form.
    public var canonical: TaskDefinitionInput {
        var result = self
        // Most inputs are already canonical (one source, names in order): check before rebuilding.
        if !Self.isStrictlyAscending(environment.lazy.map { $0.name }) {
            var byName: [String: String] = [:]
            for variable in environment { byName[variable.name] = variable.value }
            result.environment = byName.keys.sorted(by: Self.bytewise).map { EnvironmentVariable($0, byName[$0]!) }
        }
        result.sources = Self.sortedFiles(sources)
        if prerequisiteOutputs.contains(where: { !Self.isStrictlyAscending($0.outputs.lazy.map { $0.path }) })
            || !Self.isStrictlyAscending(prerequisiteOutputs.lazy.map { $0.task }) {
            result.prerequisiteOutputs = prerequisiteOutputs
                .map { PrerequisiteOutputs(task: $0.task, outputs: Self.sortedFiles($0.outputs)) }
                .sorted { Self.bytewise($0.task, $1.task) }
        }
        return result
    }

    static func bytewise(_ a: String, _ b: String) -> Bool { UTF8Text.precedes(a, b) }

    static func isStrictlyAscending<C: Collection>(_ names: C) -> Bool where C.Element == String {
        zip(names, names.dropFirst()).allSatisfy { bytewise($0, $1) }
    }

    /// Sorted by path, the first of each path kept.
    static func sortedFiles(_ files: [FileDigest]) -> [FileDigest] {
        if isStrictlyAscending(files.lazy.map { $0.path }) { return files }
        var seen: Set<String> = []
        return files.sorted { bytewise($0.path, $1.path) }.filter { seen.insert($0.path).inserted }
    }
}

/// Fingerprints of a task definition: the whole (SHA-256), and the parts `--explain` names (the
/// commands checked with XXH64: only the record compares them).
public struct Fingerprint: Hashable, Sendable {
    public var whole: ContentDigest
    public var commands: ContentDigest
    public var environment: ContentDigest
    public var directory: ContentDigest

    public init(whole: ContentDigest, commands: ContentDigest, environment: ContentDigest, directory: ContentDigest) {
        self.whole = whole
        self.commands = commands
        self.environment = environment
        self.directory = directory
    }

    /// The fingerprint of `input` (canonicalized first, so order never matters where it means nothing).
    public init(_ input: TaskDefinitionInput) {
        self.init(canonical: input.canonical)
    }

    /// For an input already in canonical form; `parts` remembers the environment and directory
    /// digests from one task to the next, since most tasks share both.
    init(canonical input: TaskDefinitionInput, parts: FingerprintParts? = nil) {
        commands = Self.commandsDigest(of: input, parts: parts)
        (environment, directory) = Self.sharedParts(of: input, parts: parts)
        whole = Self.whole(of: input, environment: environment, directory: directory)
    }

    /// Whether the task `input` (canonical) describes is the one `record` was made from: what equal
    /// `whole` digests say, compared part by part instead. The parts are exactly what `whole` is
    /// made of, and comparing them hashes only the commands (usually one short line, one SHA-256
    /// block) rather than the whole definition with every source's digest: for a no-op run that
    /// was a fifth of each task's check.
    static func matches(_ input: TaskDefinitionInput, record: TaskRecord, parts: FingerprintParts?) -> Bool {
        guard input.sources == record.sources, input.prerequisiteOutputs == record.prerequisiteOutputs else {
            return false
        }
        let (environment, directory) = sharedParts(of: input, parts: parts)
        return environment == record.fingerprint.environment && directory == record.fingerprint.directory
            && commandsDigest(of: input, parts: parts) == record.fingerprint.commands
    }

    /// The commands' digest, from `parts` when the previous task had the same commands (the
    /// instances of an `each` task all do: c300's no-op hashed the same line 300 times).
    private static func commandsDigest(of input: TaskDefinitionInput, parts: FingerprintParts?) -> ContentDigest {
        if let parts, let known = parts.commands, known.commands == input.commands, known.arguments == input.arguments {
            return known.digest
        }
        let digest = commandsDigest(of: input.commands, arguments: input.arguments)
        parts?.commands = (input.commands, input.arguments, digest)
        return digest
    }

    static func commandsDigest(of commands: [String], arguments: [String]) -> ContentDigest {
        // v2: commands run with `sh -e` (a failing line fails them), so what v1 recorded was made
        // under other rules and is run again once. v3: checked with XXH64 (`finalizeFast`): only
        // this machine's record is compared with it; `whole`, the cache's, stays SHA-256.
        var hasher = CanonicalHasher(domain: "opsrun commands v3")
        hasher.add(commands.count)
        for command in commands { hasher.add(command) }
        addArguments(arguments, to: &hasher)
        return hasher.finalizeFast()
    }

    /// Nothing when there are none, so that a record made before arguments existed still matches;
    /// else a marker, then the list.
    private static func addArguments(_ arguments: [String], to hasher: inout CanonicalHasher) {
        guard !arguments.isEmpty else { return }
        hasher.add("arguments")
        hasher.add(arguments.count)
        for argument in arguments { hasher.add(argument) }
    }

    private static func whole(of input: TaskDefinitionInput, environment: ContentDigest, directory: ContentDigest) -> ContentDigest {
        var whole = CanonicalHasher(domain: "opsrun task fingerprint v2")
        whole.add(input.commands.count)
        for command in input.commands { whole.add(command) }
        addArguments(input.arguments, to: &whole)
        whole.add(environment)
        whole.add(directory)
        add(input.sources, to: &whole)
        whole.add(input.prerequisiteOutputs.count)
        for prerequisite in input.prerequisiteOutputs {
            whole.add(prerequisite.task)
            add(prerequisite.outputs, to: &whole)
        }
        return whole.finalize()
    }

    /// The environment and directory digests, from `parts` when the previous task had the same.
    private static func sharedParts(of input: TaskDefinitionInput, parts: FingerprintParts?) -> (ContentDigest, ContentDigest) {
        let environment: ContentDigest
        if let parts, let known = parts.environment, known.variables == input.environment {
            environment = known.digest
        } else {
            environment = digest(environment: input.environment)
            parts?.environment = (input.environment, environment)
        }
        let directory: ContentDigest
        if let parts, let known = parts.directory, known.text == input.directory {
            directory = known.digest
        } else {
            var hasher = CanonicalHasher(domain: "opsrun directory v1")
            hasher.add(input.directory)
            directory = hasher.finalize()
            parts?.directory = (input.directory, directory)
        }
        return (environment, directory)
    }

    /// The variable of `current` without which it is the environment digested as `recorded`:
    /// the one added since, for `--explain`. The record keeps a digest, not the values (they may
    /// be secrets), so a changed or removed variable cannot be named. Tried only up to
    /// `maximumTried` variables: a digest each, and only for a task that runs anyway.
    static func addedVariable(in current: [EnvironmentVariable], recorded: ContentDigest) -> String? {
        guard current.count <= maximumTried else { return nil }
        for index in current.indices {
            var without = current
            without.remove(at: index)
            if digest(environment: without) == recorded { return current[index].name }
        }
        return nil
    }

    static let maximumTried = 16

    private static func digest(environment variables: [EnvironmentVariable]) -> ContentDigest {
        var environment = CanonicalHasher(domain: "opsrun environment v1")
        environment.add(variables.count)
        for variable in variables {
            environment.add(variable.name)
            environment.add(variable.value)
        }
        return environment.finalize()
    }

    private static func add(_ files: [FileDigest], to hasher: inout CanonicalHasher) {
        hasher.add(files.count)
        for file in files {
            hasher.add(file.path)
            hasher.add(file.digest)
        }
    }
}

/// The commands, environment and directory digests of the last task fingerprinted: the next task
/// usually has the very same (often the same array), so comparing spares SHA-256 computations.
final class FingerprintParts {
    var commands: (commands: [String], arguments: [String], digest: ContentDigest)?
    var environment: (variables: [EnvironmentVariable], digest: ContentDigest)?
    var directory: (text: String, digest: ContentDigest)?
}
