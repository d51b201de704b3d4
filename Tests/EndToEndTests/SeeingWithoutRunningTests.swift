import Foundation
import Testing

/// docs/manual/manifest.md and docs/manual/seeing-without-running.md through the real binary: errors, cycles, --list, --graph and --dry-run.
@Suite struct SeeingWithoutRunningTests {
    @Test func cycleExampleIsRefusedWithThePlaceOfEveryEdge() throws {
        let result = try OpsrunBinary.run([], in: OpsrunBinary.examples.appendingPathComponent("cycle"))
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == """
            Tasksfile.yaml: error: dependency cycle: package -> link -> compile -> package
              Tasksfile.yaml:13:12: 'package' depends on 'link'
              Tasksfile.yaml:10:12: 'link' depends on 'compile'
              Tasksfile.yaml:7:12: 'compile' depends on 'package'

            """)
    }

    @Test func cyclesAreFoundEvenInTasksNotAskedFor() throws {
        let project = try TemporaryProject("""
            tasks:
              hello: echo hi
              a: { run: echo a, deps: [b] }
              b: { run: echo b, deps: [a] }
            """)
        let result = try project.run("hello")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Tasksfile.yaml: error: dependency cycle: a -> b -> a\n"))
    }

    @Test func everyManifestErrorIsReportedWithItsLineAndCaret() throws {
        let project = try TemporaryProject("""
            tasks:
              compile:
                run: cc -c main.c
              build:
                dpes: [compile]
                run: ld main.o
              test:
                deps: [complie]
                timeout: 10 minutes
            """)
        let result = try project.run("build")
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == """
            Tasksfile.yaml:5:5: error: unknown key 'dpes' in task 'build'; did you mean 'deps'?
                dpes: [compile]
                ^
            Tasksfile.yaml:8:12: error: unknown task 'complie' in deps of 'test'; did you mean 'compile'?
                deps: [complie]
                       ^
            Tasksfile.yaml:9:14: error: 'timeout' of task 'test' must be a duration like 90s, 10m or 1h30m, not '10 minutes'
                timeout: 10 minutes
                         ^

            """)
    }

    @Test func aBillionLaughsFileIsRefusedNotExpanded() throws {
        var yaml = "x-a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        let letters = Array("abcdefghij")
        for k in 1..<10 {
            let previous = letters[k - 1]
            yaml += "x-\(letters[k]): &\(letters[k]) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]\n"
        }
        yaml += "tasks:\n  t: echo t\n"
        let project = try TemporaryProject(yaml)
        let result = try project.run("-l")
        #expect(result.status == 2)
        #expect(result.stderr.contains("error: aliases expand to more than"))
    }

    @Test func unknownTaskOnTheCommandLineSuggestsTheNearest() throws {
        let result = try OpsrunBinary.run(["complie"], in: OpsrunBinary.examples.appendingPathComponent("failing"))
        #expect(result.status == 2)
        #expect(result.stderr == "error: unknown task 'complie' (not in Tasksfile.yaml); did you mean 'compile'?\n")
    }

    @Test func usageErrorsExitTwo() throws {
        let pipeline = OpsrunBinary.examples.appendingPathComponent("pipeline")
        #expect(try OpsrunBinary.run(["-j", "0"], in: pipeline).status == 2)
        #expect(try OpsrunBinary.run(["--no-such-option"], in: pipeline).status == 2)
        #expect(try OpsrunBinary.run(["--list", "--graph"], in: pipeline).status == 2)
        let dot = try OpsrunBinary.run(["--list", "--format", "dot"], in: pipeline)
        #expect(dot.status == 2)
        #expect(dot.stderr == "error: --format dot does not apply to --list; use text or json\n")
    }

    @Test func listShowsEveryTaskWithItsDescriptionAlignedAndTheDefaultMarked() throws {
        let result = try OpsrunBinary.run(["--list"], in: OpsrunBinary.examples.appendingPathComponent("pipeline"))
        #expect(result.status == 0)
        #expect(result.stdout == """
            lint             Check the style of the sources
            compile          Build the program
            unit-tests       Fast tests
            integration:api  Integration tests against the API
            integration:db   Integration tests against the database
            package          Make the release archive
            ci (default)     Everything CI runs

            """)
    }

    @Test func graphPrintsATreeWithRepeatedTasksReferredTo() throws {
        let result = try OpsrunBinary.run(["--graph"], in: OpsrunBinary.examples.appendingPathComponent("diamond"))
        #expect(result.status == 0)
        #expect(result.stdout == """
            top
            ├── left
            │   └── base
            └── right
                └── base (see above)

            """)
    }

    @Test func graphInDotAndMermaidNamesEveryEdge() throws {
        let diamond = OpsrunBinary.examples.appendingPathComponent("diamond")
        let dot = try OpsrunBinary.run(["--graph", "--format", "dot"], in: diamond)
        #expect(dot.status == 0)
        #expect(dot.stdout.hasPrefix("digraph opsrun {"))
        for edge in ["\"top\" -> \"left\"", "\"top\" -> \"right\"", "\"left\" -> \"base\"", "\"right\" -> \"base\""] {
            #expect(dot.stdout.contains(edge))
        }
        let mermaid = try OpsrunBinary.run(["--graph", "--format", "mermaid", "left"], in: diamond)
        #expect(mermaid.status == 0)
        #expect(mermaid.stdout.hasPrefix("graph TD\n"))
        #expect(mermaid.stdout.contains("[\"left\"]"))
        #expect(!mermaid.stdout.contains("[\"right\"]"))
    }

    @Test func dryRunPrintsTheWavesAndRunsNothing() throws {
        let project = try TemporaryProject("""
            default: all
            tasks:
              a: touch ran-a
              b: { run: touch ran-b, priority: high }
              c: { run: touch ran-c, deps: [a, b] }
              all: { deps: [c] }
            """)
        let result = try project.run("-n", "-j", "4")
        #expect(result.status == 0)
        #expect(result.stdout == """
            wave 1:
              b (priority high)
                $ touch ran-b
              a
                $ touch ran-a
            wave 2:
              c
                $ touch ran-c
            wave 3:
              all (group)

            """)
        for name in ["ran-a", "ran-b", "ran-c"] {
            #expect(!FileManager.default.fileExists(atPath: project.path(name)))
        }
    }

    @Test func dryRunFollowsTheJobsBound() throws {
        let project = try TemporaryProject("""
            tasks:
              a: echo a
              b: echo b
              c: echo c
              all: { deps: [a, b, c] }
            """)
        let result = try project.run("-n", "-j", "1", "--format", "json", "all")
        #expect(result.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let waves = try #require(json?["waves"] as? [[[String: Any]]])
        #expect(waves.map { $0.map { $0["name"] as? String ?? "?" } } == [["a"], ["b"], ["c"], ["all"]])
    }

    @Test func manifestIsFoundInAnAncestorOrNamedWithFileOrDirectory() throws {
        let project = try TemporaryProject("tasks:\n  hi: echo hi\n", files: ["sub/deeper/keep.txt": ""])
        let fromSub = try OpsrunBinary.run(["-l"], in: project.url.appendingPathComponent("sub/deeper"))
        #expect(fromSub.status == 0)
        #expect(fromSub.stdout == "hi\n")
        let withFile = try OpsrunBinary.run(["-f", project.path("Tasksfile.yaml"), "-l"], in: URL(fileURLWithPath: "/"))
        #expect(withFile.stdout == "hi\n")
        let withDirectory = try OpsrunBinary.run(["-C", project.path("sub"), "-l"], in: URL(fileURLWithPath: "/"))
        #expect(withDirectory.stdout == "hi\n")
        let none = try OpsrunBinary.run(["-l"], in: URL(fileURLWithPath: "/"))
        #expect(none.status == 2)
    }
}
