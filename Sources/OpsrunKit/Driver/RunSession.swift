/// One run of a project: the tasks selected, turned into operations, then planned or executed.
public struct RunSession {
    public let project: Project
    public let invocation: Invocation
    /// Selected task ids in manifest order; `specs[i]` is task `selection[i]`.
    public let selection: [Int]
    public let specs: [OperationSpec]
    public let configuration: EngineConfiguration

    public init(project: Project, invocation: Invocation, environment: [String: String]) throws(ProjectError) {
        self.project = project
        self.invocation = invocation
        let roots = try project.roots(named: invocation.targets)
        selection = project.graph.closure(of: roots)
        let dotenv = try Self.dotenv(of: project)
        let builder = EnvironmentBuilder(
            processEnvironment: environment, dotenv: dotenv,
            manifestEnvironment: project.manifest.environment, overrides: invocation.variables)
        let (specs, queueBounds) = OperationBuilder(
            graph: project.graph, manifest: project.manifest, environment: builder,
            buildsEnvironments: invocation.action != .dryRun
        ).operations(for: selection)
        self.specs = specs
        configuration = EngineConfiguration(
            maxConcurrentOperationCount: invocation.jobs, queueBounds: queueBounds,
            keepGoing: invocation.keepGoing)
    }

    /// The `-n` plan: the engine's order with a runner that starts nothing.
    public func planText(format: OutputFormat) throws(Diagnostic) -> String {
        let plan = DryRunPlanner.plan(specs: specs, taskIDs: selection, configuration: configuration)
        return try PlanPrinter.render(plan, of: project.graph, format: format)
    }

    /// The `dotenv` files that exist, in order; a malformed one is a manifest error.
    static func dotenv(of project: Project) throws(ProjectError) -> [(name: String, value: String)] {
        var values: [(name: String, value: String)] = []
        for file in project.manifest.dotenvFiles {
            let path = FileText.absolute(file.value, relativeTo: project.manifest.directory)
            guard FileText.isFile(path), let text = FileText.read(path) else { continue }
            do {
                values += try DotenvFile.parse(text, file: file.value)
            } catch {
                throw ProjectError(diagnostics: error.diagnostics, sources: [file.value: text])
            }
        }
        return values
    }
}
