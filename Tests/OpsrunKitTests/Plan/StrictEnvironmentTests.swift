import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunEngine
@testable import OpsrunManifest
@testable import OpsrunGraph
@testable import OpsrunPlan

/// What a cacheable task's commands see (docs/manual/cache.md): only what enters its key, the
/// pass-through list and `pass_env`; any other task sees opsrun's whole environment, and no task
/// sees opsrun's own settings.
@Suite struct StrictEnvironmentTests {
    static let outer = [
        "PATH": "/usr/bin", "HOME": "/home/u", "LC_ALL": "C", "FLAVOR": "one", "AWS_REGION": "eu",
        "OPSRUN_REMOTE_CACHE_HEADER": "Authorization: secret", "OPSRUN_CACHE_DIR": "/c", "REGION": "us",
    ]

    /// Each selected task's environment, sorted, by name.
    func environments(_ yaml: String, dotenv: [(name: String, value: String)] = []) throws -> [String: [String]] {
        let manifest = try #require(ManifestTest.load(yaml))
        let graph = TaskGraph(manifest: manifest)
        let builder = OperationBuilder(
            graph: graph, manifest: manifest,
            environment: EnvironmentBuilder(
                processEnvironment: Self.outer, dotenv: dotenv, manifestEnvironment: manifest.environment,
                overrides: [("MODE", "fast")]))
        let selection = Array(graph.tasks.indices)
        var result: [String: [String]] = [:]
        for spec in builder.operations(for: selection).specs {
            result[spec.name] = spec.job.environment.sorted()
        }
        return result
    }

    @Test func aCacheableTaskSeesItsKeyAndThePassThroughListOnly() throws {
        let seen = try environments("""
            env: { CC: cc }
            pass_env: [AWS_*]
            tasks:
              gen:
                sources: [in.txt]
                outputs: [out.txt]
                env: { OPT: "-O2" }
                requires: [REGION]
                run: cp in.txt out.txt
              plain: env
            """, dotenv: [("FROM_DOTENV", "d"), ("FLAVOR", "dotenv")])
        #expect(seen["gen"] == [
            "AWS_REGION=eu", "CC=cc", "FLAVOR=one", "FROM_DOTENV=d", "HOME=/home/u", "LC_ALL=C", "MODE=fast",
            "OPSRUN_TASK=gen", "OPT=-O2", "PATH=/usr/bin", "REGION=us",
        ])
        // Not cacheable: the whole environment, less opsrun's settings.
        #expect(seen["plain"] == [
            "AWS_REGION=eu", "CC=cc", "FLAVOR=one", "FROM_DOTENV=d", "HOME=/home/u", "LC_ALL=C", "MODE=fast",
            "OPSRUN_TASK=plain", "PATH=/usr/bin", "REGION=us",
        ])
    }

    @Test func anOuterVariableIsHiddenUnlessNamed() throws {
        let seen = try environments("""
            tasks:
              gen: { sources: [a], outputs: [b], run: cp a b }
              passed: { sources: [a], outputs: [c], run: cp a c, pass_env: [FLAV*] }
            """)
        #expect(seen["gen"] == ["HOME=/home/u", "LC_ALL=C", "MODE=fast", "OPSRUN_TASK=gen", "PATH=/usr/bin"])
        #expect(seen["passed"] == ["FLAVOR=one", "HOME=/home/u", "LC_ALL=C", "MODE=fast", "OPSRUN_TASK=passed", "PATH=/usr/bin"])
    }

    @Test func whatIsCacheable() throws {
        let manifest = try #require(ManifestTest.load("""
            tasks:
              db: { service: true, run: sleep 1 }
              gen: { sources: [a], outputs: [b], run: x }
              link: { deps: [gen], outputs: [c], run: x }
              compile: { depfile: d, outputs: [e], run: x }
              afterService: { deps: [db], outputs: [f], run: x }
              nothingRead: { outputs: [g], run: x }
              off: { sources: [a], outputs: [h], run: x, cache: false }
              noOutputs: { sources: [a], run: x }
              lint: { run: x }
              package: { deps: [gen, lint], outputs: [i], run: x }
              all: { deps: [gen] }
              viaGroup: { deps: [all, db], outputs: [j], run: x }
            """))
        let graph = TaskGraph(manifest: manifest)
        let cacheable = graph.tasks.indices.filter {
            StrictEnvironment.isCacheable($0, in: graph)
        }.map { graph.names[$0] }
        #expect(cacheable == ["gen", "link", "compile", "viaGroup"])
        let reasons = Dictionary(uniqueKeysWithValues: graph.tasks.indices.map {
            (graph.names[$0], StrictEnvironment.whyNotCacheable($0, in: graph) ?? "cacheable")
        })
        #expect(reasons == [
            "db": "it is a service", "gen": "cacheable", "link": "cacheable", "compile": "cacheable",
            "afterService": "it has no sources, depfile or prerequisites to key it on",
            "nothingRead": "it has no sources, depfile or prerequisites to key it on",
            "off": "it says cache: false", "noOutputs": "it declares no outputs", "lint": "it declares no outputs",
            "package": "its prerequisite 'lint' declares no outputs, so what it reads is not known",
            "all": "it runs no commands", "viaGroup": "cacheable",
        ])
    }

    @Test func passEnvPatterns() {
        func matches(_ name: String, _ pattern: String) -> Bool { PassEnvironment.matches(name.utf8[...], pattern) }
        #expect(matches("AWS_REGION", "AWS_*") && matches("AWS_", "AWS_*") && !matches("XAWS_REGION", "AWS_*"))
        #expect(matches("LC_ALL", "LC_*") && matches("A_B_C", "*_*_*") && !matches("ABC", "*_*"))
        #expect(matches("CI", "CI") && !matches("CI2", "CI") && matches("anything", "*"))
    }
}
