import OpsrunKit
import Testing
@testable import OpsrunCore
@testable import OpsrunManifest
@testable import OpsrunPlan
@testable import OpsrunReport

@Suite struct PlanPrinterTests {
    let graph = SampleProject.graph

    /// The plan the dry run makes, with queue `net` bounded at 1.
    func plan(_ names: String...) -> Plan {
        var manifest = Manifest(file: graph.file, directory: "/project", tasks: graph.tasks)
        manifest.queues = [QueueSpec(name: "net", maxConcurrent: 1, location: OpsrunCore.SourceLocation(file: "Tasksfile.yaml", line: 1, column: 1))]
        return DryRunPlannerTests.plan(graph, manifest, names)
    }

    @Test func textShowsWavesWithQueuePriorityGroupAndCommands() throws {
        let docs = graph.index["docs"]!
        #expect(
            try PlanPrinter.render(plan("build", "lint"), of: graph, format: .text, upToDate: [docs]) == """
                wave 1:
                  fetch (queue net)
                    $ curl -fsSL "$URL" -o src.tgz
                  lint
                    $ swift format lint -r Sources
                wave 2:
                  compile (priority high)
                    $ mkdir -p build
                    $ cc $CFLAGS -c main.c -o build/main.o
                  docs (priority low, up to date)
                    $ make -C docs
                wave 3:
                  build (group)

                """)
    }

    @Test func textKeepsLaterLinesOfAMultiLineCommandUnderTheFirst() throws {
        var b = ManifestBuilder()
        b.task("script", run: ["set -e\necho one\necho two\n"])
        let graph = b.graph
        let plan = Plan(waves: [[0]])
        #expect(
            try PlanPrinter.render(plan, of: graph, format: .text) == """
                wave 1:
                  script
                    $ set -e
                      echo one
                      echo two

                """)
    }

    @Test func argumentsAfterTheTerminatorFollowEachCommandOfTheirTask() throws {
        var b = ManifestBuilder()
        b.task("prepare", run: ["true"])
        b.task("test", run: ["pytest \"$@\"", "set -e\necho \"$1\"\n"])
        let graph = b.graph
        let plan = Plan(waves: [[0], [1]])
        let arguments = [1: ["-v", "-k foo", "it's", ""]]
        #expect(
            try PlanPrinter.render(plan, of: graph, format: .text, arguments: arguments) == """
                wave 1:
                  prepare
                    $ true
                wave 2:
                  test
                    $ pytest "$@"  # args: -v '-k foo' 'it'\\''s' ''
                    $ set -e
                      echo "$1"  # args: -v '-k foo' 'it'\\''s' ''

                """)
        let json = try PlanPrinter.render(Plan(waves: [[1]]), of: graph, format: .json, arguments: [1: ["-v"]])
        #expect(json.contains("],\n        \"arguments\": [\n          \"-v\"\n        ],\n        \"queue\": null,"))
    }

    @Test func jsonListsEachWaveOfTasks() throws {
        let compile = graph.index["compile"]!
        #expect(
            try PlanPrinter.render(plan("compile"), of: graph, format: .json, upToDate: [compile]) == """
                {
                  "waves": [
                    [
                      {
                        "name": "fetch",
                        "commands": [
                          "curl -fsSL \\"$URL\\" -o src.tgz"
                        ],
                        "queue": "net",
                        "priority": "normal",
                        "deps": [],
                        "upToDate": false
                      }
                    ],
                    [
                      {
                        "name": "compile",
                        "commands": [
                          "mkdir -p build",
                          "cc $CFLAGS -c main.c -o build/main.o"
                        ],
                        "queue": null,
                        "priority": "high",
                        "deps": [
                          "fetch"
                        ],
                        "upToDate": true
                      }
                    ]
                  ]
                }

                """)
    }

    @Test func emptyPlanPrintsNoWaves() throws {
        let empty = Plan(waves: [])
        #expect(try PlanPrinter.render(empty, of: graph, format: .text) == "")
        #expect(try PlanPrinter.render(empty, of: graph, format: .json) == "{\n  \"waves\": []\n}\n")
    }

    @Test func dotAndMermaidDoNotApplyToAPlan() {
        let error = Diagnostic(.error, at: nil, "--format mermaid does not apply to --dry-run; use text or json")
        #expect(throws: error) { try PlanPrinter.render(plan("build"), of: graph, format: .mermaid) }
        #expect(throws: Diagnostic.self) { try PlanPrinter.render(plan("build"), of: graph, format: .dot) }
    }

    @Test func aTaskWithADepfileShowsTheFilesItListedLastTime() throws {
        var b = ManifestBuilder()
        b.task("a", run: ["cc -MMD -c a.c"])
        b.task("b", run: ["cc -MMD -c b.c"])
        let plan = Plan(waves: [[0, 1]])
        let depfiles = [
            0: PlanDepfile(path: "build/a.d", inputs: ["a.c", "include/x.h"]),
            1: PlanDepfile(path: "build/b.d", inputs: nil),
        ]
        #expect(
            try PlanPrinter.render(plan, of: b.graph, format: .text, depfiles: depfiles) == """
                wave 1:
                  a
                    $ cc -MMD -c a.c
                    depfile build/a.d: a.c include/x.h
                  b
                    $ cc -MMD -c b.c
                    depfile build/b.d: not read yet

                """)
        #expect(
            try PlanPrinter.render(Plan(waves: [[0], [1]]), of: b.graph, format: .json, depfiles: depfiles) == """
                {
                  "waves": [
                    [
                      {
                        "name": "a",
                        "commands": [
                          "cc -MMD -c a.c"
                        ],
                        "queue": null,
                        "priority": "normal",
                        "deps": [],
                        "upToDate": false,
                        "depfile": {
                          "path": "build/a.d",
                          "inputs": [
                            "a.c",
                            "include/x.h"
                          ]
                        }
                      }
                    ],
                    [
                      {
                        "name": "b",
                        "commands": [
                          "cc -MMD -c b.c"
                        ],
                        "queue": null,
                        "priority": "normal",
                        "deps": [],
                        "upToDate": false,
                        "depfile": {
                          "path": "build/b.d",
                          "inputs": null
                        }
                      }
                    ]
                  ]
                }

                """)
    }
}
