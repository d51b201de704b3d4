#if canImport(Glibc)
    import Glibc
#endif
import OpsrunCore
import OpsrunEngine
import OpsrunIncremental
import OpsrunManifest
import OpsrunPlan
import OpsrunProcess
import OpsrunReport
import OpsrunReuse

/// `-w/--watch` (docs/manual/watch.md): run, then watch the sources of the tasks asked for and the manifest;
/// when something changes, wait for the changes to settle and run again (what is up to date is
/// skipped, as in any run). A changed manifest is reloaded; its errors are printed and watching
/// goes on. A termination signal ends it: during a run, as it ends any run; while waiting, at once.
/// Services stay up between runs: one runner serves the runs while it keeps one
/// (`ProcessRunner+KeptServices`), and stops them when watching ends.
final class WatchLoop {
    let invocation: Invocation
    let environment: [String: String]
    let status: Status
    let host: ProcessHost

    /// How long the files must be quiet after a change before the run starts: an editor's save,
    /// a `git checkout`, are many events.
    static let settleMilliseconds: Int32 = 100

    /// The runner of the last run, while it keeps services up for the next.
    private var runner: ProcessRunner?

    init(invocation: Invocation, environment: [String: String], status: Status, host: ProcessHost) {
        self.invocation = invocation
        self.environment = environment
        self.status = status
        self.host = host
    }

    func run(first: Project, state: StatePreload?) -> ExitCode {
        let code = watch(first: first, state: state)
        // Services kept up end with the watch: TERM, the grace period, KILL.
        if let runner {
            runner.stopKeptServices()
            runner.shutdown()
        }
        return code
    }

    /// The runner for the next run: the one keeping services, else a new one (shut down after
    /// its run unless it keeps one then).
    private func watchRunner() -> ProcessRunner {
        if let runner, !runner.isShutDown { return runner }
        let made = ProcessRunner(graceMilliseconds: invocation.graceMilliseconds, host: host)
        made.keepsServices = true
        runner = made
        return made
    }

    private func watch(first: Project, state: StatePreload?) -> ExitCode {
        guard let watcher = FileWatcher() else {
            status.error("error: --watch: inotify is not available (\(String(cString: strerror(errno))))")
            return .usage
        }
        var project = first
        var preloaded = state
        var runs = true
        var watched = WatchedSources()
        var warned = false
        while true {
            if runs {
                let (code, sources) = runOnce(project, preloaded: preloaded, watcher: watcher)
                preloaded = nil
                if let code { return code }
                watched = sources
            }
            if let problem = watcher.problem, !warned {
                // Once: the same limit would be met again at every run.
                status.warning("warning: --watch: \(problem); changes there are not seen")
                warned = true
            }
            status.note(watched.hasSources
                ? "watching for changes (Ctrl-C to stop)"
                : "watching for changes to the manifest only: the tasks asked for list no sources (Ctrl-C to stop)")
            let change = waitForChange(watcher, watched)
            switch change {
            case .signal(let signal):
                return .interrupted(by: signal)
            case .sources:
                runs = true
            case .manifest:
                // Reloaded as at the start; while it has errors the last good one stays watched.
                do {
                    project = try Project.load(from: project.source)
                    runs = true
                } catch {
                    status.error(error.rendered)
                    runs = false
                }
            }
        }
    }

    /// One run of `project`; an exit code when watching must end (a signal), and what to watch.
    /// The sources are watched from before the run starts, so that a change made while it runs
    /// starts the next one; the inputs its depfiles list, once more after it.
    private func runOnce(_ project: Project, preloaded: StatePreload?, watcher: FileWatcher) -> (ExitCode?, WatchedSources) {
        // The root manifest and every file its `includes` read or looked for.
        let manifests = [project.source.path] + project.manifest.includedFiles.map { $0.path }
        var watched = WatchedSources()
        for manifest in manifests { watched.addManifest(manifest) }
        do {
            let session = try RunSession(
                project: project, invocation: invocation, environment: environment, preloadedState: preloaded)
            let tasks = session.plan.reuseTasks ?? []
            // A file added where an `each` glob looks is a new instance.
            let selected = Set(session.selection)
            let globs = session.instances.globs.filter { selected.contains($0.task) }.map { ($0.directory, $0.pattern) }
            var sources = Self.sources(of: tasks, globs: globs, manifests: manifests)
            Self.watch(sources, with: watcher)
            let code = session.run(status: status, host: host, watchRunner: watchRunner())
            if [.interrupted, .terminated, .hungUp, .quit].contains(code) { return (code, watched) }
            if tasks.contains(where: { $0.depfile != nil }) {
                sources = Self.sources(of: tasks, globs: globs, manifests: manifests)
                Self.watch(sources, with: watcher)
            }
            watched = sources
        } catch {
            // A task named that the reloaded manifest lacks, a required variable unset: said, and
            // the manifest watched for the fix.
            status.error(error.rendered)
        }
        Self.watch(watched, with: watcher)
        return (nil, watched)
    }

    /// What to watch for `tasks` (the run's, with their sources) and the manifest: the inputs
    /// their depfiles list now included.
    private static func sources(
        of tasks: [IncrementalTaskSpec], globs: [(directory: String, pattern: String)], manifests: [String]
    ) -> WatchedSources {
        var watched = WatchedSources()
        for manifest in manifests { watched.addManifest(manifest) }
        for (directory, pattern) in globs { watched.addTask(directory: directory, sources: [pattern], outputs: []) }
        for task in tasks {
            let depfileInputs = task.depfile.map {
                IncrementalRun.inputs(ofDepfile: FileText.absolute($0, relativeTo: task.absoluteDirectory))
            } ?? []
            watched.addTask(
                directory: task.absoluteDirectory, sources: task.sources, outputs: task.outputs,
                depfileInputs: depfileInputs)
        }
        return watched
    }

    private static func watch(_ watched: WatchedSources, with watcher: FileWatcher) {
        for (directory, recursive) in watched.directories.sorted(by: { $0.key < $1.key }) {
            watcher.watch(directory, recursive: recursive)
        }
    }

    private enum Change { case sources, manifest, signal(Int32) }

    /// Waits for a change that matters, then for the files to be quiet for `settleMilliseconds`.
    private func waitForChange(_ watcher: FileWatcher, _ watched: WatchedSources) -> Change {
        var found: Change?
        // When the files will have been quiet long enough (once a change was found).
        var quietAt: UInt64 = 0
        while true {
            // Services kept up are served meanwhile: their output read, their exits seen; what
            // they do does not put the settling off.
            let kept = runner?.keptServicesDescriptor
            var timeout: Int32 = -1
            if found != nil {
                let now = MonotonicClock.now()
                timeout = quietAt > now ? Int32(clamping: (quietAt - now + 999_999) / 1_000_000) : 0
            }
            // Ctrl-Z stops the services kept up too (docs/manual/running.md).
            let keeper = kept == nil ? nil : runner
            let outcome = SignalWait.wait(
                for: watcher.descriptor, also: kept, timeoutMilliseconds: timeout, suspend: keeper.map { $0.suspend })
            switch outcome {
            case .signal(let signal): return .signal(signal)
            case .alsoReadable:
                if let signal = runner?.serveKeptServices() { return .signal(signal) }
                if let found, MonotonicClock.now() >= quietAt { return found }
            case .timedOut: if let found { return found }
            case .readable:
                quietAt = MonotonicClock.now() + UInt64(Self.settleMilliseconds) * 1_000_000
                for change in watcher.changes() {
                    switch change {
                    case .overflow:
                        found = found.map { $0 } ?? .sources
                    case .path(let path):
                        if watched.manifests.contains(path) {
                            found = .manifest
                        } else if watched.isSource(path), found == nil {
                            found = .sources
                        }
                    }
                }
            }
        }
    }
}
