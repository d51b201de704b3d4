import OpsrunCore
import OpsrunEngine
import OpsrunGraph
import OpsrunManifest
import OpsrunPlan
import OpsrunProcess
import OpsrunReport
import OpsrunReuse

/// What `opsrun` does with an invocation: find and check the manifest, then list, print the graph,
/// print the plan, or run. Returns the exit code; says everything through the `Status`.
public enum Driver {
    /// `environment`: opsrun's own environment, the base of every command's; `status`: the voice,
    /// on the streams the executable owns; `host`: what it set up for its process; `kept`: where the
    /// run's large values go when it ends, when the caller exits right after without freeing them.
    public static func run(
        _ invocation: Invocation, environment: [String: String], status: Status, host: ProcessHost = .embedded,
        keepingUntilExit kept: KeptUntilExit? = nil
    ) -> ExitCode {
        guard let start = startDirectory(invocation) else {
            status.error("error: -C \(invocation.directory ?? ""): no such directory")
            return .usage
        }
        if invocation.action == .initialize { return StarterFile.write(invocation, in: start, status: status) }
        // A server opsrun cannot use is said before anything runs (docs/manual/cache.md).
        if invocation.action == .run, let problem = CacheSettings.usageError(invocation, environment: environment) {
            status.error("error: " + problem)
            return .usage
        }

        // The manifest cache's writer: joined on every way out.
        let background = BackgroundWork()
        defer { background.finish() }
        do {
            let source = try Project.locate(
                explicitFile: invocation.manifestFile, workingDirectory: start, shownAs: invocation.directory)
            // A run or a plan reads the state too: open it meanwhile, on another thread.
            let state = invocation.action == .run || invocation.action == .dryRun
                ? StatePreload(manifestDirectory: source.directory, prefetchingStats: !invocation.force) : nil
            let project = try Project.load(from: source, writingCacheOn: background)
            defer { kept?.keep(project) }
            switch invocation.action {
            case .list:
                // The manifest's tasks, an `each` task once with how many instances it has.
                let counts = project.hasEach
                    ? try RunSession.instances(of: project, invocation: invocation, environment: environment).instanceCounts
                    : []
                status.result(try usageErrors { () throws(Diagnostic) in
                    try ListPrinter.render(
                        project.graph, instanceCounts: counts,
                        defaults: Set(project.manifest.defaultTasks.map { $0.value }), namespaces: project.manifest.namespaces,
                        format: invocation.format)
                })
                return .success
            case .taskNames:
                let graph = project.expandsTasks
                    ? try RunSession.instances(of: project, invocation: invocation, environment: environment).graph
                    : project.graph
                // `NAME<tab>DESC`, the first line of its `desc` (zsh and fish show it beside the name).
                var lines = ""
                for (name, task) in zip(graph.names, graph.tasks) {
                    lines += name + (task.description.map { "\t" + Self.completionDescription($0) } ?? "") + "\n"
                }
                // A namespace with a `default` is a name too: `opsrun web` runs web's default.
                for namespace in project.manifest.namespaces where !namespace.defaultTasks.isEmpty {
                    lines += namespace.name + "\tRun " + namespace.defaultTasks.joined(separator: ", ") + "\n"
                }
                status.result(lines)
                return .success
            case .initialize:
                return .usage  // handled before a manifest is looked for
            case .graph:
                let instances = project.expandsTasks
                    ? try RunSession.instances(of: project, invocation: invocation, environment: environment) : nil
                let graph = instances?.graph ?? project.graph
                var roots: [Int] = []
                if !invocation.targets.isEmpty {
                    if let instances {
                        roots = try instances.roots(named: invocation.targets)
                    } else {
                        roots = try project.roots(named: invocation.targets)
                    }
                }
                // Written as it is made: the graph of a large manifest is never held whole.
                GraphPrinter.write(graph, roots: roots, format: invocation.format, to: status.result)
                // A `:name` the manifest run does not have is refused only by a run of its task
                // (the manifest may be a sub-project run alone): the graph says what it leaves out.
                let shown = roots.isEmpty ? nil : Set(graph.closure(of: roots).map { graph.names[$0] })
                for reference in project.manifest.rootReferences where shown?.contains(reference.task) ?? true {
                    status.warning(Diagnostic(
                        .warning, at: reference.reference.location,
                        "task '\(reference.task)' depends on '\(reference.reference.value)', which \(project.source.displayName) "
                            + "does not have: the graph leaves that edge out, and a run of the task is refused").description)
                }
                return .success
            case .dryRun:
                let session = try RunSession(
                    project: project, invocation: invocation, environment: environment, preloadedState: state)
                defer {
                    session.joinBackgroundWork()
                    kept?.keep(session)
                }
                let text = try usageErrors { () throws(Diagnostic) in
                    try session.planText(format: invocation.format, status: status, keepingUntilExit: kept)
                }
                status.result(text)
                return .success
            case .run where invocation.watch:
                if let warning = IncludingManifest.warning(for: project, invocation: invocation) { status.warning(warning) }
                return WatchLoop(invocation: invocation, environment: environment, status: status, host: host)
                    .run(first: project, state: state)
            case .run:
                let session = try RunSession(
                    project: project, invocation: invocation, environment: environment, preloadedState: state)
                defer {
                    session.joinBackgroundWork()
                    kept?.keep(session)
                }
                // Said once, before anything runs: a sub-project run alone lacks its includer's variables.
                if let warning = IncludingManifest.warning(for: project, invocation: invocation) { status.warning(warning) }
                // Created now, once the manifest and the task names are known good, before any
                // task starts: a path that cannot be written is a usage error with nothing run.
                let reports = try invocation.reportFiles.isEmpty ? nil : usageErrors { () throws(Diagnostic) in
                    try ReportFiles(invocation.reportFiles, relativeTo: start, standardOutput: status.streams.standardOutput)
                }
                // A report on standard output comes alone there: what the run prints goes to
                // standard error instead, so `--report - | jq` reads JSON only.
                if reports?.writesToStandardOutput == true { status.giveStandardOutputToReport() }
                return session.run(status: status, host: host, reports: reports, keepingUntilExit: kept)
            }
        } catch {
            status.error(error.rendered)
            return .usage
        }
    }

    /// Where the run starts: `-C`'s directory, resolved by the kernel (`-C link/..` is the link
    /// target's parent, as for `cd -P` and make), else the current one; `nil` when `-C` names no
    /// directory.
    static func startDirectory(_ invocation: Invocation) -> String? {
        let cwd = FileText.currentDirectory()
        guard let directory = invocation.directory else { return cwd }
        guard let real = FileText.realPath(directory.hasPrefix("/") ? directory : cwd + "/" + directory),
            FileText.isDirectory(real)
        else { return nil }
        return real
    }

    /// Whether the manifest `invocation` names loads and has a task `name`. For `opsrun help`,
    /// which prints the help unless the manifest has a task of that name.
    public static func manifestHasTask(_ name: String, for invocation: Invocation) -> Bool {
        guard let start = startDirectory(invocation) else { return false }
        guard let source = try? Project.locate(explicitFile: invocation.manifestFile, workingDirectory: start),
            let project = try? Project.load(from: source)
        else { return false }
        return project.graph.index[name] != nil
    }

    /// A task's `desc` as a completion shows it: its first line, tabs as spaces (a tab ends the name's field).
    static func completionDescription(_ description: String) -> String {
        (description.split(separator: "\n", maxSplits: 1).first ?? "")
            .split(separator: "\t", omittingEmptySubsequences: false).joined(separator: " ")
    }

    /// What `body` makes (a printer's output, the report files), or its diagnostic (a format that
    /// does not apply, a report path that cannot be written) as a usage error.
    private static func usageErrors<Value>(_ body: () throws(Diagnostic) -> Value) throws(ProjectError) -> Value {
        do { return try body() } catch { throw ProjectError(diagnostics: [error], sources: [:]) }
    }
}
