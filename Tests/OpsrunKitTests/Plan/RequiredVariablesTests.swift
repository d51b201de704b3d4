import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunManifest
@testable import OpsrunGraph
@testable import OpsrunPlan

/// docs/manual/variables.md: what must be set before a run starts, and the words that say so.
@Suite struct RequiredVariablesTests {
    func problems(
        _ yaml: String, tasks: [String], environment: [String: String] = [:],
        overrides: [(name: String, value: String)] = []
    ) throws -> [String] {
        let manifest = try #require(ManifestTest.load(yaml))
        let graph = TaskGraph(manifest: manifest)
        let builder = OperationBuilder(
            graph: graph, manifest: manifest,
            environment: EnvironmentBuilder(
                processEnvironment: environment, dotenv: [], manifestEnvironment: manifest.environment,
                overrides: overrides))
        let selection = graph.closure(of: tasks.map { graph.index[$0]! })
        return RequiredVariables.problems(selection: selection, builder: builder) { _ in yaml }.map(\.description)
    }

    static let yaml = """
        dotenv: [.env, .env.local]
        tasks:
          build: { run: true, requires: [CC] }
          deploy: { deps: [build], run: true, requires: [TOKEN, REGION, TOKEN] }
          docs: { run: true, requires: [NEVER_SET] }
        """

    @Test func eachTaskOfTheRunSaysWhatItLacksAndWhereToSetIt() throws {
        #expect(try problems(Self.yaml, tasks: ["deploy"], environment: ["REGION": "eu"]) == [
            "Tasksfile.yaml:3:34: error: task 'build' requires CC, which is not set; set it in the environment, a dotenv file (.env, .env.local), env:, or as a NAME=VALUE argument (CC=...)",
            "Tasksfile.yaml:4:50: error: task 'deploy' requires TOKEN, which is not set; set it in the environment, a dotenv file (.env, .env.local), env:, or as a NAME=VALUE argument (TOKEN=...)",
        ])
        #expect(try problems(Self.yaml, tasks: ["deploy"], environment: ["TOKEN": "", "CC": "cc"])  == [
            "Tasksfile.yaml:4:50: error: task 'deploy' requires TOKEN, REGION, which are not set or empty; set them in the environment, a dotenv file (.env, .env.local), env:, or as NAME=VALUE arguments (TOKEN=...)",
        ])
        #expect(try problems(Self.yaml, tasks: ["build"], environment: ["CC": ""])  == [
            "Tasksfile.yaml:3:34: error: task 'build' requires CC, which is empty; set it in the environment, a dotenv file (.env, .env.local), env:, or as a NAME=VALUE argument (CC=...)",
        ])
    }

    @Test func aVariableTheTasksEnvSetsEmptyPointsAtThatEntry() throws {
        let yaml = """
            tasks:
              e: { run: true, requires: [E1], env: { E1: "" } }
            """
        #expect(try problems(yaml, tasks: ["e"], environment: ["E1": "from-the-shell"]) == [
            "Tasksfile.yaml:2:30: error: task 'e' requires E1, which is empty; E1 is set empty by env: at Tasksfile.yaml:2:42, "
                + "which the environment and dotenv files do not override; change it there, or pass a NAME=VALUE argument (E1=...)",
        ])
    }

    @Test func argumentsAndEnvSatisfyRequirements() throws {
        let yaml = """
            tasks:
              deploy: { run: true, requires: [TOKEN, REGION], env: { REGION: "${REGION:-eu}" } }
            """
        #expect(try problems(yaml, tasks: ["deploy"], overrides: [("TOKEN", "t")]) == [])
        #expect(try problems(yaml, tasks: ["deploy"], environment: ["TOKEN": "t"], overrides: [("TOKEN", "")]).count == 1)
    }

    @Test func colonQuestionInEveryExpandedValueIsChecked() throws {
        let yaml = """
            env: { URL: "${HOST:?}" }
            tasks:
              t:
                dir: "${D:?no dir}"
                sources: ["${S:?}"]
                outputs: ["${O:?}"]
                env: { E: "${V:?set V}" }
                run: true
                depfile: build/${F:?}.d
            """
        #expect(try problems(yaml, tasks: ["t"]) == [
            "Tasksfile.yaml:1:14: error: the value of 'URL' in 'env' needs HOST, which is not set or is empty",
            "Tasksfile.yaml:4:11: error: 'dir' of task 't' needs D, which is not set or is empty: no dir",
            "Tasksfile.yaml:5:16: error: 'sources' of task 't' needs S, which is not set or is empty",
            "Tasksfile.yaml:6:16: error: 'outputs' of task 't' needs O, which is not set or is empty",
            "Tasksfile.yaml:7:16: error: the value of 'E' in 'env' of task 't' needs V, which is not set or is empty: set V",
            "Tasksfile.yaml:9:20: error: 'depfile' of task 't' needs F, which is not set or is empty",
        ])
        #expect(try problems(yaml, tasks: ["t"], environment: ["HOST": "h", "D": "d", "S": "s", "O": "o", "V": "v", "F": "f"]) == [])
    }
}
