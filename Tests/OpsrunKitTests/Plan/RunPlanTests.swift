import Testing

@testable import OpsrunCore
@testable import OpsrunEngine
@testable import OpsrunIncremental
@testable import OpsrunPlan

/// One run's plan, built once (docs/architecture.md): one index, the operation's, from the plan to
/// the engine and the reuse object.
@Suite struct RunPlanTests {
    static func plan(
        _ yaml: String, targets: [String] = [], arguments: [String] = [], scratch: ScratchDirectory = ScratchDirectory()
    ) throws(ProjectError) -> RunPlan {
        scratch.write("src/a.c", "int a;")
        scratch.write("src/b.c", "int b;")
        scratch.write("Tasksfile.yaml", yaml)
        let project = try Project.load(explicitFile: nil, workingDirectory: scratch.path)
        let environment = EnvironmentBuilder(
            processEnvironment: ["PATH": "/usr/bin:/bin"], dotenv: [], manifestEnvironment: project.manifest.environment,
            overrides: [])
        return try RunPlan(
            project: project, environment: environment, targets: targets, taskArguments: arguments,
            buildsEnvironments: true)
    }

    static let build = """
        tasks:
          compile:
            each: { SRC: "src/*.c" }
            run: cc -c "$SRC"
            sources: ["${SRC}"]
            outputs: ["${SRC%.c}.o"]
          link:
            deps: [compile]
            run: cc -o app src/a.o src/b.o
            outputs: [app]
        """

    @Test func operationIIsTaskIDsIThroughoutThePlan() throws {
        let plan = try Self.plan(Self.build, targets: ["link"])
        #expect(plan.operations.count == plan.taskIDs.count)
        #expect(plan.reuseTasks?.count == plan.taskIDs.count)
        for operation in plan.operations.indices {
            let name = plan.graph.names[plan.taskIDs[operation]]
            #expect(plan.operations[operation].name == name)
            #expect(plan.reuseTasks?[operation].name == name)
        }
        let compileA = try #require(plan.operations.firstIndex { $0.name == "compile[src/a.c]" })
        #expect(plan.reuseTasks?[compileA].sources == ["src/a.c"])
        #expect(plan.sourceLocation(ofOperation: compileA, source: 0)?.line == 5)
        #expect(plan.shownCommands(ofOperation: compileA) == [#"cc -c "src/a.c""#])
    }

    @Test func aRunWithoutSourcesOrOutputsHasNoReuseTasks() throws {
        let plan = try Self.plan("tasks:\n  hello: echo hello\n", targets: ["hello"])
        #expect(plan.reuseTasks == nil)
        #expect(plan.operations.map(\.name) == ["hello"])
    }

    @Test func argumentsAfterTheTerminatorGoToEveryInstanceOfTheTaskNamed() throws {
        let plan = try Self.plan(Self.build, targets: ["compile"], arguments: ["-O2"])
        let instances = plan.taskIDs.filter { plan.graph.tasks[$0].instance != nil }
        #expect(instances.count == 2)
        for id in instances { #expect(plan.builder.arguments[id] == ["-O2"]) }
    }

    @Test func twoTasksWritingOneFileKeepTheRunFromStarting() {
        let yaml = """
            tasks:
              one: { run: touch out, outputs: [out] }
              two: { run: touch out, outputs: [./out] }
            """
        #expect(throws: ProjectError.self) { try Self.plan(yaml, targets: ["one", "two"]) }
    }
}
