// The one place that decides whether a task runs (`decide`): found up to date by its record
// (`IncrementalRun`), unable to start (a source missing or not a file), restored from the output
// cache, or run. It sits behind the engine's `UpToDateChecking` protocol, so the engine knows
// nothing of files; it reads files through `IncrementalRun`'s `FileAccess` and the state through its
// `StateMedium`, so its rules are tested on a virtual file system (ReuseTests); and it never
// prints: what it finds goes to a `ReuseReporter`.
import OpsrunCache
import OpsrunCore
import OpsrunEngine
import OpsrunIncremental

/// Everything about not running a task, for one run: operation indices in, decisions out; the
/// state's records and the cache's entries written as tasks end.
package final class Reuse: UpToDateChecking {
    private let run: IncrementalRun
    private let tasks: [IncrementalTaskSpec]
    /// Each task's prerequisites, as indices in `tasks`.
    private let prerequisites: [[Int]]
    /// The checks of tasks that must run, for `willRun` and `didEnd` (up-to-date ones need none).
    private var checks: [TaskCheck?]
    /// Whether a real run follows the checks (a dry run only asks).
    private let recording: Bool
    private let reporter: ReuseReporter
    /// `--explain`: say why each task runs.
    private let explains: Bool
    private var missingSources: MissingSources
    private var foundUpToDate: [Bool]
    /// Indices found up to date, for the dry-run plan.
    package var upToDate: Set<Int> { Set(foundUpToDate.indices.lazy.filter { self.foundUpToDate[$0] }) }
    /// For each checked task with a depfile, the files it listed last time (`nil`: none recorded).
    package private(set) var depfileInputs: [Int: [String]?] = [:]
    private let locateDepfile: (_ task: Int) -> SourceLocation?
    private let locateSource: (_ task: Int, _ source: Int) -> SourceLocation?
    /// The output cache, in a run that uses it (docs/manual/cache.md).
    package var cache: ReuseCache?
    /// Checks made by `willDecide`, ahead of `decide`, which takes them (with a remote cache only).
    private var earlyChecks: [Int: TaskCheck] = [:]

    /// `recording`: a run follows (a plan only asks). `signalPending`: hashing gives way when it
    /// says a SIGINT or SIGTERM waits (only where the runner takes them from a signalfd, so that
    /// the engine is sure to hear of them). `locateSource`: where in the manifest the `source`th
    /// `sources` entry of a task is written; `locateDepfile`: where its `depfile` is.
    package init(
        run: IncrementalRun, tasks: [IncrementalTaskSpec], prerequisites: [[Int]], recording: Bool,
        signalPending: (() -> Bool)? = nil, reporter: ReuseReporter, explains: Bool,
        locateSource: @escaping (_ task: Int, _ source: Int) -> SourceLocation? = { _, _ in nil },
        locateDepfile: @escaping (_ task: Int) -> SourceLocation? = { _ in nil }
    ) {
        missingSources = MissingSources(tasks: tasks, files: run.files, locate: locateSource)
        self.locateDepfile = locateDepfile
        self.locateSource = locateSource
        self.run = run
        if let signalPending { run.shouldStop = signalPending }
        self.tasks = tasks
        self.prerequisites = prerequisites
        self.recording = recording
        self.reporter = reporter
        self.explains = explains
        checks = Array(repeating: nil, count: tasks.count)
        foundUpToDate = Array(repeating: false, count: tasks.count)
        for diagnostic in run.diagnostics { reporter.warning(diagnostic.description) }
    }

    /// In a run with a remote cache (set `cache` before the engine is made).
    package var looksAhead: Bool { recording && cache?.fetchesAhead == true }

    /// With a remote cache, checks the cacheable ones now and starts fetching the entries of those
    /// that must run, so that the server is asked for many at once rather than one after the
    /// other. A ready operation's prerequisites have ended, so its check is the one `decide` would
    /// make; `decide` takes it rather than check again.
    package func willDecide(_ indices: ArraySlice<Int>) {
        guard looksAhead, let cache else { return }
        for index in indices where earlyChecks[index] == nil && !tasks[index].isService && cache.isCacheable(index) {
            let check = run.check(tasks[index], index: index, prerequisiteIndices: prerequisites[index])
            earlyChecks[index] = check
            if case .mustRun(let reason) = check.verdict, reason != .interrupted, check.missingSources.isEmpty,
                check.specialSources.isEmpty
            {
                cache.fetchAhead(index, check)
            }
        }
    }

    package func decide(_ index: Int) -> UpToDateDecision {
        let check = earlyChecks.removeValue(forKey: index)
            ?? run.check(tasks[index], index: index, prerequisiteIndices: prerequisites[index])
        if tasks[index].depfile != nil { depfileInputs[index] = .some(check.depfileInputs) }
        if case .mustRun(.interrupted) = check.verdict { return .interrupted }
        if !check.missingSources.isEmpty, let missing = missingSources.error(forTask: index, missing: check.missingSources) {
            reporter.error(missing.error.description)
            // A plan says so and goes on: nothing runs, and what it shows is still true.
            if recording {
                run.failed(check)
                return .cannotRun("source '\(missing.source)' does not exist")
            }
        }
        if let special = check.specialSources.first {
            // At the `sources` entry that found it, or at the depfile that listed it.
            let place = if let pattern = special.pattern {
                tasks[index].sources.firstIndex(of: pattern).flatMap { locateSource(index, $0) }
            } else {
                locateDepfile(index)
            }
            let (error, reason) = SpecialSources.error(for: special, of: tasks[index], at: place)
            reporter.error(error.description)
            if recording {
                run.failed(check)
                return .cannotRun(reason)
            }
        }
        if check.verdict.isUpToDate {
            foundUpToDate[index] = true
            return .upToDate
        }
        if recording, let found = cache?.restore(index, check, matching: { run.hasContent($0, for: check) }) {
            let restored = found.restored
            for problem in run.restored(check, discovered: found.discovered) { reporter.warning(problem.description) }
            if explains {
                let place = restored.fromServer ? "shared" : "local"
                reporter.explain("\(tasks[index].name) is restored from the \(place) cache: \(check.verdict)")
            }
            return .restored(standardOutput: restored.standardOutput, standardError: restored.standardError)
        }
        checks[index] = check
        // Groups run nothing, so there is nothing to explain about them.
        if explains, !tasks[index].commands.isEmpty {
            let uncacheable = cache?.whyNotCacheable(index).map { " (not cacheable: \($0))" } ?? ""
            reporter.explain("\(tasks[index].name) runs: \(check.verdict)\(uncacheable)")
        }
        return .mustRun
    }

    package func runInterrupted() { run.stopReading() }

    package var gaveWayToSignal: Bool { run.gaveWayToSignal }

    package func willRun(_ index: Int) {
        guard recording, let check = checks[index] else { return }
        if let problem = run.willRun(check) { reporter.warning(problem.description) }
    }

    package func didEnd(_ index: Int, succeeded: Bool) {
        guard recording, let check = checks[index] else { return }
        if succeeded {
            var problems: [Diagnostic]
            if let cache, cache.isCacheable(index) {
                let success = run.succeededForCache(check)
                problems = success.warnings
                cache.store(index, check, success)
            } else {
                problems = run.succeeded(check)
            }
            for var problem in problems {
                // A depfile's problem points at the task's `depfile` (a state's, at the state file).
                if problem.file == nil, let place = locateDepfile(index) {
                    problem.location = place
                    problem.file = place.file
                }
                reporter.warning(problem.description)
            }
        } else {
            run.failed(check)
        }
    }

    /// Saves what the run learned; call once at the end.
    package func finish() {
        if let problem = run.finish() { reporter.warning(problem.description) }
    }
}
