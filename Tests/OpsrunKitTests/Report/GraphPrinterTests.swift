import OpsrunKit
import Testing
@testable import OpsrunReport
@testable import OpsrunCore
@testable import OpsrunManifest
@testable import OpsrunGraph

@Suite struct GraphPrinterTests {
    let graph = SampleProject.graph
    var build: Int { graph.index["build"]! }
    var compile: Int { graph.index["compile"]! }

    @Test func textDrawsATreeFromEveryRootWhenNoneIsNamed() {
        #expect(
            GraphPrinter.render(graph, format: .text) == """
                lint
                build
                ├── compile
                │   └── fetch
                └── docs
                    └── fetch (see above)

                """)
    }

    @Test func textShowsATaskReachedAgainOnceAcrossRoots() {
        #expect(
            GraphPrinter.render(graph, roots: [compile, build], format: .text) == """
                compile
                └── fetch
                build
                ├── compile (see above)
                └── docs
                    └── fetch (see above)

                """)
    }

    @Test func textShowsTasksOnlyReachableThroughACycle() {
        let cyclic = ManifestBuilder.graph(["a": ["b"], "b": ["a"], "solo": []])
        #expect(
            GraphPrinter.render(cyclic, format: .text) == """
                solo
                a
                └── b
                    └── a (see above)

                """)
    }

    @Test func dotHasANodePerTaskAndAnEdgeToEachPrerequisite() {
        #expect(
            GraphPrinter.render(graph, roots: [build], format: .dot) == """
                digraph opsrun {
                  "fetch";
                  "compile";
                  "docs";
                  "build";
                  "compile" -> "fetch";
                  "docs" -> "fetch";
                  "build" -> "compile";
                  "build" -> "docs";
                }

                """)
    }

    @Test func dotEscapesQuotesAndBackslashes() {
        let odd = ManifestBuilder.graph(["say \"hi\"": [], "back\\slash": ["say \"hi\""]])
        #expect(
            GraphPrinter.render(odd, format: .dot) == """
                digraph opsrun {
                  "say \\"hi\\"";
                  "back\\\\slash";
                  "back\\\\slash" -> "say \\"hi\\"";
                }

                """)
    }

    @Test func mermaidNumbersNodesAndQuotesTheirNames() {
        #expect(
            GraphPrinter.render(graph, format: .mermaid) == """
                graph TD
                  n0["fetch"]
                  n1["compile"]
                  n2["docs"]
                  n3["lint"]
                  n4["build"]
                  n1 --> n0
                  n2 --> n0
                  n4 --> n1
                  n4 --> n2

                """)
    }

    @Test func mermaidIdsStayPlainForNamesWithColonsDotsAndQuotes() {
        let odd = ManifestBuilder.graph(["docker:build": [], "release.v1": ["docker:build"], "say\"hi": []])
        #expect(
            GraphPrinter.render(odd, roots: [1, 2], format: .mermaid) == """
                graph TD
                  n0["docker:build"]
                  n1["release.v1"]
                  n2["say#quot;hi"]
                  n1 --> n0

                """)
    }

    @Test func jsonListsTasksWithTheirQueueAndPriorityThenEdges() {
        #expect(
            GraphPrinter.render(graph, roots: [compile], format: .json) == """
                {
                  "tasks": [
                    {
                      "name": "fetch",
                      "deps": [],
                      "queue": "net",
                      "priority": "normal"
                    },
                    {
                      "name": "compile",
                      "deps": [
                        "fetch"
                      ],
                      "queue": null,
                      "priority": "high"
                    }
                  ],
                  "edges": [
                    {
                      "from": "compile",
                      "to": "fetch"
                    }
                  ]
                }

                """)
    }

    @Test func aDeepChainDrawsWithoutRecursion() {
        let chain = ManifestBuilder.chain(2_000, closed: false)
        let text = GraphPrinter.render(chain, format: .text)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2_000)
        // Past 16 levels the indent stays and each line says its depth.
        #expect(lines[16] == Substring(String(repeating: " ", count: 60) + "└── t16"))
        #expect(lines.last == Substring(String(repeating: " ", count: 64) + "└── [1999] t1999"))
        #expect(GraphPrinter.render(ManifestBuilder.chain(100_000, closed: false), format: .dot).hasSuffix(
            "  \"t99998\" -> \"t99999\";\n}\n"))
    }

    @Test func pastTheIndentedDepthBranchesStillShowTheirDepth() {
        // t0 -> t1 -> ... -> t17, and t17 needs both a and b.
        var tasks = (0..<18).map { i in
            TaskSpec(name: "t\(i)", location: SourceLocation(file: "T", line: i + 1, column: 3),
                     deps: i < 17 ? [Located("t\(i + 1)", at: SourceLocation(file: "T", line: i + 1, column: 9))] : [],
                     commands: [Located("true", at: SourceLocation(file: "T", line: i + 1, column: 20))])
        }
        tasks[17].deps = ["a", "b"].map { Located($0, at: SourceLocation(file: "T", line: 18, column: 9)) }
        for name in ["a", "b"] {
            tasks.append(TaskSpec(name: name, location: SourceLocation(file: "T", line: 19, column: 3),
                                  commands: [Located("true", at: SourceLocation(file: "T", line: 19, column: 9))]))
        }
        let graph = TaskGraph(manifest: Manifest(file: "T", directory: "/p", tasks: tasks))
        let lines = GraphPrinter.render(graph, format: .text).split(separator: "\n").suffix(3)
        let lead = String(repeating: " ", count: 64)
        #expect(Array(lines) == [lead + "└── [17] t17", lead + "├── [18] a", lead + "└── [18] b"].map { Substring($0) })
    }
}
