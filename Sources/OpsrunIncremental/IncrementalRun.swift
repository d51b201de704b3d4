// The one object a run talks to about "up to date", so the driver makes three calls per task and
// knows nothing of globs, hashes or logs:
//   check(task)      when the task's operation becomes ready (all prerequisites finished): only
//                    then are its prerequisites' outputs final, and early cutoff needs their bytes;
//   willRun(check)   just before its commands start, if the check said it must run;
//   succeeded(check) / failed(check) when it ends.
// Prerequisite outputs are taken as the prerequisite left them in this run: hashed when it was found
// up to date or after it succeeded, so each file is hashed about once per run. A group (a task with
// no commands) stands for its own prerequisites, and is up to date when they all were. A task without
// sources cannot say what it reads, so, as make does with a phony prerequisite, one of its
// prerequisites that ran and declares no outputs makes it run. In a dry run nothing runs, so a task
// whose prerequisite would run is reported as "prerequisite X runs first" rather than guessed.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OpsrunCore

/// The up-to-date bookkeeping of one run: decisions, invalidations and records.
public final class IncrementalRun {
    let store: StateStore
    let hasher: FileHasher
    /// Where files are statted and read: the disk, or a test's virtual file system.
    package let files: any FileAccess
    private let force: Bool
    /// The tasks given to `init`, by index: a check by index records only the index below.
    let tasks: [IncrementalTaskSpec]
    /// Which of `tasks` were checked so far; tasks checked without an index are in `checkedSpecs`.
    var isChecked: [Bool]
    var checkedSpecs: [String: IncrementalTaskSpec] = [:]
    /// Which of `tasks` were found up to date; by name for tasks checked without an index.
    var wasUpToDate: [Bool]
    var upToDateNames: Set<String> = []
    /// `tasks` by name, made the first time a prerequisite is looked up (a no-op run of tasks
    /// without prerequisites never needs it).
    var taskIndexByName: [String: Int]?
    /// Each of `tasks` checked with its prerequisites' indices, those indices: a dependent's check
    /// then finds what its prerequisites left without a lookup by name.
    var prerequisiteIndicesOfTask: [[Int]?]
    /// Outputs as each task left them in this run, for its dependents.
    var exports: [String: [FileDigest]] = [:]
    /// Tasks found to need a run that have not ended yet.
    var pending: Set<String> = []

    /// Digests of the environment and directory last fingerprinted, shared by most tasks.
    private let fingerprintParts = FingerprintParts()
    /// The manifest's directory (the parent of `.opsrun`) and a descriptor of it: the files of tasks
    /// that run there are reached by their short relative paths, as ninja does from its directory.
    let baseDirectory: String?
    let baseDescriptor: Int32
    /// The state names files relative to `baseDirectory` (always, unless the state directory is
    /// not `<base>/.opsrun`): then a relative path in it is its own key.
    let keysAreRelativeToBase: Bool
    /// How this manifest's tasks are named in the state, apart from its directory's other manifests'.
    private let recordNames: StateRecordNames
    /// Digests of depfiles' files looked at so far (by path relative to `baseDirectory`, else
    /// absolute), while `remembersDigests`: no command has started yet, so none has changed.
    var rememberedDigests: [String: ContentDigest?] = [:]
    var remembersDigests = true
    /// Every task's declared outputs, made when an output directory is first expanded (a run
    /// without one never makes it): a file another task declares is not that directory's.
    lazy var declaredOutputs = DeclaredOutputs(of: tasks)
    /// When each running task with a depfile started, by `startClock`.
    private var startTimes: [String: Int64] = [:]
    /// The clock of `startTimes`: the one file times are stamped with (tests move it).
    lazy var startClock: () -> Int64 = { [files] in files.coarseRealtimeNanoseconds() }
    /// Where the `output`th `outputs` entry of the task named `task` is written: the place of the
    /// warning for an output its success did not write.
    public var locateOutput: (_ task: String, _ output: Int) -> SourceLocation? = { _, _ in nil }

    /// Opens the state in `stateDirectory` (`<manifest directory>/.opsrun`); `force` is `-B`;
    /// `recordNames` say which manifest of the directory the tasks are from.
    public convenience init(stateDirectory: String, force: Bool = false, recordNames: StateRecordNames = .bare) {
        self.init(stateDirectory: stateDirectory, force: force, tasks: [], recordNames: recordNames)
    }

    /// The same for `tasks`: `check(_:index:)` with a task's index in `tasks` keeps its
    /// bookkeeping by index (`tasks` may be empty).
    /// `store`, when given, hands over the state already opening from `stateDirectory` (or `nil`),
    /// perhaps prefetching stats (`StateStore.prefetchStats`); it is asked once the base directory
    /// is open. Otherwise the state is opened here, and with `creatingState` (a run, not a plan)
    /// created and locked at once.
    package init(
        stateDirectory: String, force: Bool, tasks: [IncrementalTaskSpec],
        recordNames: StateRecordNames = .bare, store opened: (() -> StateStore?)? = nil, creatingState: Bool = false,
        files: any FileAccess = DiskFiles()
    ) {
        self.force = force
        self.files = files
        self.recordNames = recordNames
        let suffix = "/" + StateDirectory.name
        if stateDirectory.hasSuffix(suffix), stateDirectory.utf8.count > suffix.utf8.count {
            let base = String(stateDirectory.dropLast(suffix.count))
            let descriptor = files.openDirectory(base)
            baseDirectory = descriptor == AT_FDCWD ? nil : base
            baseDescriptor = descriptor
        } else {
            baseDirectory = nil
            baseDescriptor = AT_FDCWD
        }
        self.tasks = tasks
        isChecked = Array(repeating: false, count: tasks.count)
        wasUpToDate = Array(repeating: false, count: tasks.count)
        prerequisiteIndicesOfTask = Array(repeating: nil, count: tasks.count)
        exports.reserveCapacity(tasks.count)
        store = opened?() ?? StateStore(directory: stateDirectory, creating: creatingState)
        hasher = FileHasher(persisted: store, files: files)
        keysAreRelativeToBase = baseDirectory != nil && baseDirectory == store.projectDirectory
            && baseDirectory?.utf8.last != UInt8(ascii: "/")
    }

    deinit {
        files.closeDirectory(baseDescriptor)
    }

    /// Stops the state's stat prefetch and joins its threads (each ends with the chunk it holds);
    /// nothing is prefetched from then on. Called at the first `willRun`, at `finish()`, and by an
    /// owner that keeps this run until the process exits without finishing it (a usage error found
    /// after it was opened).
    public func stopPrefetch() {
        store.stopPrefetching()
    }

    /// Warnings from opening the state (a foreign or damaged file, another opsrun): print them once.
    public var diagnostics: [Diagnostic] { store.diagnostics }

    /// Decides whether `task` is up to date. Call when its operation becomes ready, after every
    /// prerequisite was checked and, if it ran, ended (`succeeded` or `failed`).
    public func check(_ task: IncrementalTaskSpec) -> TaskCheck {
        check(task, index: nil)
    }

    /// `check(_:)` for `task`, the `index`th of the tasks given to `init(stateDirectory:force:tasks:)`.
    /// `prerequisiteIndices`: the task's prerequisites as indices in those tasks, when the caller
    /// has them: a group then learns how they ended without a lookup by name (a no-op run's
    /// top group may have 10,000).
    package func check(_ task: IncrementalTaskSpec, index: Int?, prerequisiteIndices: [Int]? = nil) -> TaskCheck {
        if let index {
            isChecked[index] = true
            prerequisiteIndicesOfTask[index] = prerequisiteIndices
        } else {
            checkedSpecs[task.name] = task
        }
        let outputs = outputStates(of: task)
        var input = TaskDefinitionInput(
            commands: task.definingCommands, arguments: task.arguments, environment: task.environment,
            directory: task.directory)
        var missing: [String] = []
        var special: [SpecialSource] = []
        var prerequisites: [String] = []
        var effectiveIndices: [Int]?
        if !task.sources.isEmpty {
            (input.sources, missing, special) = sources(of: task)
        }
        let declaredSources = input.sources
        let entry = store.entry(for: recordNames.key(of: task.name))
        var depfileInputs: [String]?
        // The depfile's files as the record lists them: the depfile itself is not read again.
        if task.depfile != nil, case .succeeded(let record)? = entry, let depfile = record.depfile {
            if depfile.problem == nil { depfileInputs = depfile.inputs }
            input.sources = adding(depfile.inputs, to: input.sources, of: task, special: &special)
        }
        if isRecorded(task) {
            effectiveIndices = index.flatMap { effectivePrerequisites(ofIndex: $0) }
            prerequisites = effectiveIndices.map { $0.map { tasks[$0].name } } ?? effectivePrerequisites(of: task)
            input.prerequisiteOutputs = prerequisites.map { name in
                PrerequisiteOutputs(task: name, outputs: outputsLeft(by: name))
            }
        }
        var verdict = UpToDateCheck.verdict(
            for: input, declaresSources: task.declaresInputs, outputs: outputs,
            entry: entry, force: force, depfile: task.depfile, parts: fingerprintParts)
        if verdict.isUpToDate {
            verdict = prerequisiteVerdict(of: task, prerequisites: prerequisites, indices: effectiveIndices) ?? verdict
        } else if task.commands.isEmpty, !force, !isRecorded(task) {
            verdict = groupVerdict(of: task, prerequisiteIndices: prerequisiteIndices)
        }
        // Some digests are of nothing: decide nothing on them.
        if hasher.wasStopped { verdict = .mustRun(.interrupted) }
        if verdict.isUpToDate {
            if let index { wasUpToDate[index] = true } else { upToDateNames.insert(task.name) }
            exports[task.name] = outputs.compactMap { state in state.digest.map { FileDigest(path: state.path, digest: $0) } }
        } else if !task.isService {
            pending.insert(task.name)
        }
        return TaskCheck(
            task: task, verdict: verdict, missingSources: missing, specialSources: special, input: input,
            depfileInputs: depfileInputs,
            declaredSources: declaredSources)
    }

    /// Invalidates the task's record, durably, before its commands start. A returned warning means
    /// the state could not be written (and was removed): print it; the run goes on.
    public func willRun(_ check: TaskCheck) -> Diagnostic? {
        filesMayChange()
        if !check.task.isService { pending.insert(check.task.name) }
        if check.task.depfile != nil { startTimes[check.task.name] = startClock() }
        do { try store.recordStarted(recordNames.key(of: check.task.name)) } catch { return error }
        return nil
    }

    /// Hashes the task's outputs, reads its depfile, and records its success (for a task with
    /// sources, outputs or a depfile). Returns warnings to print: a depfile not written or not
    /// readable, a state that could not be written.
    public func succeeded(_ check: TaskCheck) -> [Diagnostic] {
        recordSuccess(check).warnings
    }

    /// From now on files may change under this run (a command starts, outputs are restored): stat afresh.
    func filesMayChange() {
        // From now on files may change under this run: stat afresh.
        stopPrefetch()
        if remembersDigests {
            remembersDigests = false
            rememberedDigests = [:]
        }
    }

    /// `succeeded`, also returning the outputs as hashed (a missing one without a digest) and the
    /// record made (`nil` when none was), for the output cache to store. `discovered`: for a task
    /// with a depfile restored from the cache, the inputs its entry's depfile listed, with their
    /// content now, recorded instead of reading the depfile.
    func recordSuccess(
        _ check: TaskCheck, discovered: [FileDigest]? = nil
    ) -> (warnings: [Diagnostic], outputs: [OutputState], record: TaskRecord?) {
        let name = check.task.name
        pending.remove(name)
        let states = outputStates(of: check.task)
        let outputs = states.compactMap { state in
            state.digest.map { FileDigest(path: state.path, digest: $0) }
        }
        exports[name] = outputs
        let startTime = startTimes.removeValue(forKey: name)
        // Outputs not hashed to the end (a signal came) prove nothing: record nothing.
        guard isRecorded(check.task), !hasher.wasStopped else { return ([], [], nil) }
        var warnings: [Diagnostic] = []
        // As a depfile not written is: otherwise only `--explain` told why the task ran every time.
        if !check.task.isService, let missing = states.first(where: { $0.digest == nil }) {
            let what = GlobPattern.literalPath(of: missing.path) == nil
                ? "any file matching its output '\(missing.path)'" : "its output '\(missing.path)'"
            let place = check.task.outputs.firstIndex(of: missing.path).flatMap { locateOutput(name, $0) }
            warnings.append(Diagnostic(
                .warning, at: place, "task '\(name)' succeeded without writing \(what); it runs again next time"))
        }
        var input = check.input
        var depfile: DepfileRecord?
        if let discovered {
            input.sources = TaskDefinitionInput.sortedFiles(check.declaredSources + discovered)
            depfile = DepfileRecord(inputs: discovered.map { $0.path }.sorted(by: TaskDefinitionInput.bytewise))
        } else if check.task.depfile != nil {
            // Without a start time (no `willRun`), every file first listed counts as changed.
            let (read, listed, warning) = readDepfile(of: check, startedAt: startTime ?? .min)
            if let warning { warnings.append(warning) }
            // Hashing was cut short by a signal: the digests are of nothing.
            guard !hasher.wasStopped else { return (warnings, [], nil) }
            (input, depfile) = (read, listed)
        }
        input.sources = distrustingChanges(to: input.sources, of: check)
        let record = TaskRecord(input: input, outputs: outputs, depfile: depfile)
        do {
            try store.recordSucceeded(
                recordNames.key(of: name), record, directory: check.task.absoluteDirectory,
                statEntries: hasher.takeNewEntries())
        } catch {
            warnings.append(error)
            return (warnings, states, nil)
        }
        return (warnings, states, record)
    }

    /// Asked before each file is read and between chunks of a large one: `true` when a signal
    /// waits, so that hashing gives way to it. Checks then say `.interrupted`.
    public var shouldStop: (() -> Bool)? {
        get { hasher.shouldStop }
        set { hasher.shouldStop = newValue }
    }

    /// Hashing gave way to a signal (`shouldStop`), or the run was interrupted (`stopReading`):
    /// nothing was recorded since. Asked after a success, it means the run must end interrupted.
    public var gaveWayToSignal: Bool { hasher.wasStopped }

    /// The run was interrupted: no file is read from now on, no success is recorded, and checks
    /// say `.interrupted`.
    public func stopReading() { hasher.stop() }

    /// The task failed (or was interrupted): nothing is recorded, and its dependents that still run
    /// (`allow_failure`) see its outputs as they are on disk.
    public func failed(_ check: TaskCheck) {
        pending.remove(check.task.name)
        exports[check.task.name] = nil
    }

    /// Persists what the stat cache learned and closes the state (compacting it if it grew). Call
    /// once, at the end of the run.
    public func finish() -> Diagnostic? {
        stopPrefetch()
        do { try store.recordStatEntries(hasher.takeNewEntries()) } catch {
            store.close()
            return error
        }
        return store.close()
    }
}
