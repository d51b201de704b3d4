import OpsrunKit
import Testing
@testable import OpsrunCore
@testable import OpsrunManifest
@testable import OpsrunGraph
@testable import OpsrunReport

@Suite struct ListPrinterTests {
    let graph = SampleProject.graph

    @Test func textAlignsDescriptionsAfterTheLongestName() throws {
        #expect(
            try ListPrinter.render(graph, format: .text) == """
                fetch    Download the sources
                compile
                docs     Build the docs
                lint
                build    Build everything

                """)
    }

    @Test func textShowsOnlyTheFirstLineOfADescription() throws {
        var b = ManifestBuilder()
        b.task("a", desc: "one\ntwo")
        b.task("bb", desc: "")
        #expect(try ListPrinter.render(b.graph, format: .text) == "a   one\nbb\n")
    }

    @Test func jsonListsNameDescAndDeps() throws {
        #expect(
            try ListPrinter.render(graph, format: .json) == """
                {
                  "tasks": [
                    {
                      "name": "fetch",
                      "desc": "Download the sources",
                      "deps": [],
                      "instances": null,
                      "default": false
                    },
                    {
                      "name": "compile",
                      "desc": null,
                      "deps": [
                        "fetch"
                      ],
                      "instances": null,
                      "default": false
                    },
                    {
                      "name": "docs",
                      "desc": "Build the docs",
                      "deps": [
                        "fetch"
                      ],
                      "instances": null,
                      "default": false
                    },
                    {
                      "name": "lint",
                      "desc": null,
                      "deps": [],
                      "instances": null,
                      "default": false
                    },
                    {
                      "name": "build",
                      "desc": "Build everything",
                      "deps": [
                        "compile",
                        "docs"
                      ],
                      "instances": null,
                      "default": false
                    }
                  ]
                }

                """)
    }

    @Test func jsonEscapesQuotesBackslashesAndControlCharacters() throws {
        var b = ManifestBuilder()
        b.task("x", desc: "say \"hi\"\\\t\u{1}é")
        #expect(
            try ListPrinter.render(b.graph, format: .json) == """
                {
                  "tasks": [
                    {
                      "name": "x",
                      "desc": "say \\"hi\\"\\\\\\t\\u0001é",
                      "deps": [],
                      "instances": null,
                      "default": false
                    }
                  ]
                }

                """)
    }

    @Test func textMarksTheDefaultTasksAndCountsInstances() throws {
        var b = ManifestBuilder()
        b.task("compile", desc: "Compile one file")
        b.task("build", desc: "Build it")
        b.task("test")
        #expect(
            try ListPrinter.render(b.graph, instanceCounts: [3, nil, 1], defaults: ["build", "compile"], format: .text) == """
                compile (default, 3 instances)  Compile one file
                build (default)                 Build it
                test (1 instance)

                """)
        let json = try ListPrinter.render(b.graph, instanceCounts: [3, nil, 1], defaults: ["build"], format: .json)
        #expect(json.contains("\"name\": \"build\",\n      \"desc\": \"Build it\",\n      \"deps\": [],\n      \"instances\": null,\n      \"default\": true\n"))
    }

    @Test func emptyManifestListsNothing() throws {
        let empty = TaskGraph(manifest: Manifest(file: "Tasksfile.yaml", directory: "/p"))
        #expect(try ListPrinter.render(empty, format: .text) == "")
        #expect(try ListPrinter.render(empty, format: .json) == "{\n  \"tasks\": []\n}\n")
    }

    @Test func dotAndMermaidDoNotApplyToAList() {
        let error = Diagnostic(.error, at: nil, "--format dot does not apply to --list; use text or json")
        #expect(throws: error) { try ListPrinter.render(graph, format: .dot) }
        #expect(throws: Diagnostic.self) { try ListPrinter.render(graph, format: .mermaid) }
        #expect(error.description == "error: --format dot does not apply to --list; use text or json")
    }
}
