/// What `opsrun` does with an invocation: find and check the manifest, then list, print the graph,
/// print the plan, or run. Returns the exit code; writes only through printers' output.
public enum Driver {
    public static func run(_ invocation: Invocation, environment: [String: String] = ProcessEnvironment.current) -> ExitCode {
        let out = FileDescriptorWriter.standardOutput
        let err = FileDescriptorWriter.standardError
        let cwd = FileText.currentDirectory()
        var start = cwd
        if let directory = invocation.directory {
            // Resolved by the kernel: `-C link/..` is the link target's parent, as for `cd -P` and make.
            guard let real = FileText.realPath(directory.hasPrefix("/") ? directory : cwd + "/" + directory),
                FileText.isDirectory(real)
            else {
                err.write("error: -C \(directory): no such directory\n")
                return .usage
            }
            start = real
        }

        defer { Project.finishBackgroundWork() }
        do {
            let source = try Project.locate(
                explicitFile: invocation.manifestFile, workingDirectory: start, shownAs: invocation.directory)
            // A run or a plan reads the state too: open it meanwhile, on another thread.
            let state = invocation.action == .run || invocation.action == .dryRun
                ? StatePreload(manifestDirectory: source.directory) : nil
            let project = try Project.load(from: source)
            defer { KeptUntilExit.keep(project) }
            switch invocation.action {
            case .list:
                out.write(try usageErrors { () throws(Diagnostic) in try ListPrinter.render(project.graph, format: invocation.format) })
                return .success
            case .graph:
                let roots = invocation.targets.isEmpty ? [] : try project.roots(named: invocation.targets)
                out.write(GraphPrinter.render(project.graph, roots: roots, format: invocation.format))
                return .success
            case .dryRun:
                let session = try RunSession(
                    project: project, invocation: invocation, environment: environment, preloadedState: state)
                defer { KeptUntilExit.keep(session) }
                let text = try usageErrors { () throws(Diagnostic) in
                    try session.planText(format: invocation.format) { err.write($0 + "\n") }
                }
                out.write(text)
                return .success
            case .run:
                let session = try RunSession(
                    project: project, invocation: invocation, environment: environment, preloadedState: state)
                defer { KeptUntilExit.keep(session) }
                // Created now, once the manifest and the task names are known good, before any
                // task starts: a path that cannot be written is a usage error with nothing run.
                let reports = try invocation.reportFiles.isEmpty ? nil : usageErrors { () throws(Diagnostic) in
                    try ReportFiles(invocation.reportFiles, relativeTo: start)
                }
                return session.run(standardOutput: out, standardError: err, environment: environment, reports: reports)
            }
        } catch {
            err.write(error.rendered + "\n")
            return .usage
        }
    }

    /// What `body` makes (a printer's output, the report files), or its diagnostic (a format that
    /// does not apply, a report path that cannot be written) as a usage error.
    private static func usageErrors<Value>(_ body: () throws(Diagnostic) -> Value) throws(ProjectError) -> Value {
        do { return try body() } catch { throw ProjectError(diagnostics: [error], sources: [:]) }
    }
}
