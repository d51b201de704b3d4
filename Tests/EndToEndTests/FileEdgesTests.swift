import Foundation
import Testing

/// A source that is another task's declared output makes that task a prerequisite, as in make and
/// ninja (docs/manual/up-to-date.md), through the real binary.
@Suite struct FileEdgesTests {
    /// `link` reads the objects `compile` declares, with no `deps`; listed first, so that at `-j 1`
    /// without the edge it would run before them (and fail).
    static let manifest = """
        default: link
        tasks:
          link:
            sources: [main.o, util.o]
            outputs: [prog]
            run: cat main.o util.o > prog
          compile:
            each: { SRC: "*.c" }
            sources: ["${SRC}"]
            outputs: ["${SRC%.c}.o"]
            run: cp "$SRC" "${SRC%.c}.o"
        """

    @Test func aSourceThatIsAnotherTasksOutputMakesThatTaskAPrerequisite() throws {
        let project = try TemporaryProject(Self.manifest, files: ["main.c": "main\n", "util.c": "util\n"])
        let first = try project.run("-j", "1")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(try String(contentsOfFile: project.path("prog"), encoding: .utf8) == "main\nutil\n")

        // A changed object makes the link run: the prerequisites' outputs are part of its definition.
        try "main 2\n".write(toFile: project.path("main.c"), atomically: false, encoding: .utf8)
        let edited = try project.run("-j", "1", "--explain")
        #expect(edited.status == 0, "\(edited.stdout)\(edited.stderr)")
        #expect(try String(contentsOfFile: project.path("prog"), encoding: .utf8) == "main 2\nutil\n")
        #expect(edited.stdout.contains("✓ link "), "\(edited.stdout)")
    }

    @Test func theEdgeIsShownByTheGraphAndThePlan() throws {
        let project = try TemporaryProject(Self.manifest, files: ["main.c": "main\n", "util.c": "util\n"])
        let plan = try project.run("-n", "-j", "4")
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout == """
            wave 1:
              compile[main.c]
                $ cp "main.c" "main.o"
              compile[util.c]
                $ cp "util.c" "util.o"
            wave 2:
              link
                $ cat main.o util.o > prog

            """)
        let tree = try project.run("--graph", "link")
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(tree.stdout == """
            link
            ├── compile[main.c] (reads main.o)
            └── compile[util.c] (reads util.o)

            """)
        let dot = try project.run("--graph", "--format", "dot", "link")
        #expect(dot.stdout.contains("""
              "link" -> "compile[main.c]" [label="main.o"];
              "link" -> "compile[util.c]" [label="util.o"];

            """), "\(dot.stdout)")
        let mermaid = try project.run("--graph", "--format", "mermaid", "link")
        #expect(mermaid.stdout.contains("  n0 -->|\"main.o\"| n1\n"), "\(mermaid.stdout)")
        let json = try project.run("--graph", "--format", "json", "link")
        #expect(json.stdout.contains("\"from\": \"link\",\n      \"to\": \"compile[util.c]\",\n      \"reads\": \"util.o\"\n"), "\(json.stdout)")
    }

    /// A failed prerequisite stops what reads its output, as a `deps` entry's would.
    @Test func aFailedWriterStopsItsReaders() throws {
        let project = try TemporaryProject("""
            default: use
            tasks:
              use:
                sources: [gen/a.h]
                run: touch used
              gen:
                outputs: [gen]
                run: "false"
            """, files: ["gen/a.h": "from an earlier run\n"])
        let result = try project.run("-j", "1")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: project.path("used")))
    }

    /// A source glob waits for exactly the instances whose outputs it matches; a source directory
    /// for the outputs beneath it; a source beneath an output directory for the task that writes it.
    @Test func globsAndDirectoriesMakeEdgesToExactlyTheWritersTheyRead() throws {
        let project = try TemporaryProject("""
            tasks:
              pack:
                sources: ["obj/*.o"]
                run: cat obj/*.o
              ship:
                sources: [obj]
                run: ls obj
              docs:
                sources: [site/index.html]
                run: cat site/index.html
              compile:
                each: { SRC: [a, b] }
                outputs: ["obj/${SRC}.o"]
                run: echo $SRC > obj/$SRC.o
              notes:
                outputs: [obj/notes.txt]
                run: echo notes > obj/notes.txt
              site:
                outputs: [site]
                run: mkdir -p site && echo hi > site/index.html
            """)
        let graph = try project.run("--graph", "pack", "ship", "docs")
        #expect(graph.status == 0, "\(graph.stderr)")
        #expect(graph.stdout == """
            pack
            ├── compile[a] (reads obj/a.o)
            └── compile[b] (reads obj/b.o)
            ship
            ├── compile[a] (reads obj/a.o) (see above)
            ├── compile[b] (reads obj/b.o) (see above)
            └── notes (reads obj/notes.txt)
            docs
            └── site (reads site/index.html)

            """)
    }

    /// A task's own outputs never count among its sources, nor do an `each` task's instances'
    /// among one another's; an output glob makes no edge.
    @Test func ownOutputsAndOutputGlobsMakeNoEdge() throws {
        let project = try TemporaryProject("""
            tasks:
              build:
                sources: [src, out/stamp]
                outputs: [out]
                run: mkdir -p out && touch out/stamp
              each:
                each: { N: [a, b] }
                sources: ["gen/*.txt"]
                outputs: ["gen/${N}.txt"]
                run: echo $N > gen/$N.txt
              reader:
                sources: [logs/run.log]
                run: "true"
              logger:
                outputs: ["logs/*.log"]
                run: "true"
            """, files: ["src/a": "a\n"])
        let graph = try project.run("--graph")
        #expect(graph.status == 0, "\(graph.stderr)")
        #expect(graph.stdout == """
            build
            each
            ├── each[a]
            └── each[b]
            reader
            logger

            """)
    }

    @Test func aCycleThroughAFileNamesTheSourceThatMadeIt() throws {
        let project = try TemporaryProject("""
            tasks:
              a:
                sources: [out/b.txt]
                outputs: [out/a.txt]
                run: cp out/b.txt out/a.txt
              b:
                deps: [a]
                outputs: [out/b.txt]
                run: touch out/b.txt
            """)
        let result = try project.run("a")
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == """
            Tasksfile.yaml: error: dependency cycle: a -> b -> a
              Tasksfile.yaml:3:15: 'a' reads 'out/b.txt', an output of 'b'
              Tasksfile.yaml:7:12: 'b' depends on 'a'

            """)
        #expect(!FileManager.default.fileExists(atPath: project.path("out")))
    }
}
