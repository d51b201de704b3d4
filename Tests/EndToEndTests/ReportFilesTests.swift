import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/output-and-reports.md, through the real binary: `--report`, `--junit` and `--trace` files written when a run
/// ends, whatever way it ends.
@Suite struct ReportFilesTests {
    func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func tasks(_ document: [String: Any]) throws -> [String: [String: Any]] {
        let list = try #require(document["tasks"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as! String, $0) })
    }

    @Test func aFailedRunRecordsWhatFailedWhatItCancelledAndWhy() throws {
        // `slow` is still running when `compile` fails: it waits at the gate, opened only once
        // opsrun has reported the failure, then lasts 0.3 s more (the duration checked below).
        let gate = try Gate()
        let project = try TemporaryProject("""
            default: release
            tasks:
              compile: { run: 'echo compiling; echo "main.c:3: error: expected ;" >&2; exit 2' }
              link: { deps: [compile], run: echo link }
              docs: { deps: [slow], run: echo docs }
              slow: { run: \(gate.wait); sleep 0.3 }
              release: { deps: [link, docs] }
            """)
        let result = try project.run("-j", "2", "--report", "out/run.json", "--junit", "junit.xml", "--trace", "trace.json")
        // The report's directory must exist: `out/` does not, so nothing ran.
        #expect(result.status == 2)
        #expect(result.stderr.contains("--report out/run.json: cannot write it: No such file or directory"))
        #expect(!result.stdout.contains("compile"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: project.url.path).sorted() == ["Tasksfile.yaml"])

        try FileManager.default.createDirectory(atPath: project.path("out"), withIntermediateDirectories: true)
        let running = try project.start("-j", "2", "--report", "out/run.json", "--junit", "junit.xml", "--trace", "trace.json")
        running.waitForOutput(containing: "✗ compile")
        gate.release()
        let ran = running.wait()
        #expect(ran.status == 1)
        let report = try json(project.path("out/run.json"))
        #expect(report["exit_code"] as? Int == 1)
        #expect(report["stopped_after"] as? String == "compile")
        let byName = try tasks(report)
        #expect(byName["compile"]?["state"] as? String == "failed")
        #expect(byName["compile"]?["exit_status"] as? Int == 2)
        #expect(byName["link"]?["state"] as? String == "cancelled")
        #expect(byName["link"]?["caused_by"] as? String == "compile")
        #expect(byName["slow"]?["state"] as? String == "succeeded")
        #expect((byName["slow"]?["duration_ms"] as? Int ?? 0) >= 250)
        #expect(byName["docs"]?["state"] as? String == "not_run")

        let junit = try String(contentsOfFile: project.path("junit.xml"), encoding: .utf8)
        #expect(junit.contains("<testsuites name=\"opsrun\" tests=\"5\" failures=\"1\" errors=\"0\" skipped=\"3\""))
        #expect(junit.contains("<failure message=\"exit 2 after "))
        #expect(junit.contains("compiling\nmain.c:3: error: expected ;\n</failure>"))
        #expect(junit.contains("<testcase name=\"link\" classname=\"Tasksfile.yaml\" time=\"0.000\">\n      <skipped message=\"prerequisite &apos;compile&apos; failed\"/>"))

        let trace = try json(project.path("trace.json"))
        let slices = try #require(trace["traceEvents"] as? [[String: Any]]).filter { $0["ph"] as? String == "X" }
        #expect(Set(slices.compactMap { $0["name"] as? String }) == ["compile", "slow"])
        // Nothing but the three files (and `.opsrun`, with the durations of the tasks that
        // succeeded) is left beside the manifest: no temporary files.
        let left = try FileManager.default.contentsOfDirectory(atPath: project.url.path).sorted()
        #expect(left == [".opsrun", "Tasksfile.yaml", "junit.xml", "out", "trace.json"])
    }

    @Test func pathsAreRelativeToTheDirectoryGivenWithC() throws {
        let project = try TemporaryProject("tasks:\n  hello: echo hi\n", files: ["sub/.keep": ""])
        let moved = try TemporaryProject("tasks:\n  other: echo other\n")
        let result = try OpsrunBinary.run(["-C", project.url.path, "--report", "sub/run.json", "hello"], in: moved.url)
        #expect(result.status == 0)
        let report = try json(project.path("sub/run.json"))
        #expect(try tasks(report)["hello"]?["state"] as? String == "succeeded")
        // The manifest as messages name it: from where opsrun started, through -C (docs/manual/manifest.md).
        #expect(report["manifest"] as? String == project.path("Tasksfile.yaml"))
    }

    @Test func anInterruptedRunStillWritesItsReport() throws {
        let project = try TemporaryProject("""
            tasks:
              serve: sh -c 'echo $$ > started.pid; sleep 30'
            """)
        let running = try OpsrunBinary.start(["--report", "run.json", "--grace", "1s", "serve"], in: project.url)
        defer { running.stopIfRunning() }
        _ = try #require(ProcessProbe.pid(writtenTo: project.path("started.pid")), "the task never started")
        kill(running.pid, SIGINT)
        let result = running.wait()
        #expect(result.status == 130)
        let report = try json(project.path("run.json"))
        #expect(report["exit_code"] as? Int == 130)
        #expect(report["signal"] as? String == "SIGINT")
        let serve = try #require(try tasks(report)["serve"])
        #expect(serve["state"] as? String == "interrupted")
        #expect(serve["reason"] as? String == "interrupted by SIGINT")
        #expect(serve["attempts"] as? Int == 1)
    }

    /// A CI cancel (SIGTERM) or Ctrl-C while a task runs: that task ran and did not pass, so it is
    /// a JUnit `<error>` saying so, with what it printed, and `interrupted` in the JSON report;
    /// the task that never started is skipped, with the reason.
    @Test func aTaskRunningWhenTheRunIsInterruptedIsAnErrorAndOneThatNeverStartedIsSkipped() throws {
        let project = try TemporaryProject("""
            tasks:
              serve: echo serving; echo $$ > started.pid; sleep 30
              after:
                deps: [serve]
                run: echo after
            """)
        let running = try OpsrunBinary.start(
            ["--junit", "junit.xml", "--report", "run.json", "--grace", "1s", "after"], in: project.url)
        defer { running.stopIfRunning() }
        _ = try #require(ProcessProbe.pid(writtenTo: project.path("started.pid")), "the task never started")
        kill(running.pid, SIGTERM)
        #expect(running.wait().status == 143)

        let junit = try String(contentsOfFile: project.path("junit.xml"), encoding: .utf8)
        #expect(junit.contains(
            "<testsuites name=\"opsrun\" tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"1\""), "\(junit)")
        #expect(junit.contains(
            "<testsuite name=\"Tasksfile.yaml\" tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"1\""), "\(junit)")
        #expect(junit.contains("""
            >
                  <error message="interrupted by SIGTERM" type="interrupted">serving
            </error>
                </testcase>
                <testcase name="after" classname="Tasksfile.yaml" time="0.000">
                  <skipped message="interrupted by SIGTERM"/>
                </testcase>
            """), "\(junit)")
        let parsed = try JUnitFile(contentsOf: project.path("junit.xml"))
        #expect(parsed.errorMessages == ["interrupted by SIGTERM"])
        #expect(parsed.skippedMessages == ["interrupted by SIGTERM"])

        let report = try json(project.path("run.json"))
        let states = try tasks(report).mapValues { $0["state"] as? String }
        #expect(states == ["serve": "interrupted", "after": "cancelled"])
        let counts = try #require(report["counts"] as? [String: Int])
        #expect(counts["interrupted"] == 1 && counts["cancelled"] == 1, "\(counts)")
    }

    /// The summary and the report count an interrupted run alike: the task cut short as
    /// interrupted (not cancelled), the tasks that had not started as cancelled, groups in no
    /// count (found by a new user: "3 cancelled" there, "cancelled 3" here, groups counted once).
    @Test func theSummaryAndTheReportCountAnInterruptedRunAlike() throws {
        let project = try TemporaryProject("""
            default: all
            tasks:
              quick: echo quick
              long:
                deps: [quick]
                run: echo $$ > started.pid; sleep 30
              after: { deps: [long], run: echo after }
              other: { run: echo other, priority: low }
              uptodate: { run: echo u > u.txt, outputs: [u.txt] }
              all: { deps: [after, other, uptodate] }
            """)
        #expect(try project.run("uptodate").status == 0)
        let running = try OpsrunBinary.start(["-j", "1", "--report", "run.json", "--grace", "1s"], in: project.url)
        defer { running.stopIfRunning() }
        _ = try #require(ProcessProbe.pid(writtenTo: project.path("started.pid")), "the task never started")
        kill(running.pid, SIGTERM)
        let result = running.wait()
        #expect(result.status == 143)
        #expect(result.stdout.hasSuffix("""
            1 succeeded, 1 interrupted, 2 cancelled, 1 up to date
            INTERRUPTED by SIGTERM
              interrupted  long      interrupted by SIGTERM
              2 tasks had not started

            """), "\(result.stdout)")
        let counts = try #require(try json(project.path("run.json"))["counts"] as? [String: Int])
        #expect(counts == [
            "succeeded": 1, "interrupted": 1, "cancelled": 2, "up_to_date": 1,
            "failed": 0, "failed_allowed": 0, "not_run": 0, "stopped": 0, "restored": 0,
        ])
    }

    @Test func aReportThatCannotBeWrittenAtTheEndFailsASuccessfulRun() throws {
        let project = try TemporaryProject("tasks:\n  clean: rm -r out\n", files: ["out/.keep": ""])
        let result = try project.run("--report", "out/run.json", "clean")
        #expect(result.status == 1)
        #expect(result.stdout.contains("1 succeeded"))
        #expect(result.stderr.contains("error: cannot write --report \(project.path("out/run.json")): No such file or directory"))
    }

    @Test(arguments: [["--dry-run"], ["--list"], ["--graph"]])
    func reportsRecordRunsAndAreRefusedWithoutOne(mode: [String]) throws {
        let project = try TemporaryProject("tasks:\n  hello: touch ran\n")
        let result = try OpsrunBinary.run(mode + ["--junit", "junit.xml"], in: project.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--junit records a run; it cannot be used with --list, --graph or --dry-run"))
        #expect(!FileManager.default.fileExists(atPath: project.path("junit.xml")))
    }

    @Test func twoReportsCannotShareAFileHoweverItIsWritten() throws {
        let project = try TemporaryProject("tasks:\n  hello: touch ran\n")
        let result = try project.run("--report", "r", "--trace", "./r", "hello")
        #expect(result.status == 2)
        #expect(result.stderr.contains("error: --report and --trace name the same file, ./r"))
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: project.url.path) == ["Tasksfile.yaml"])
    }

    @Test func aLaterPathThatCannotBeWrittenLeavesNoEarlierFileBehind() throws {
        let project = try TemporaryProject("tasks:\n  hello: touch ran\n", files: ["folder/.keep": ""])
        let missing = try project.run("--report", "run.json", "--junit", "missing/junit.xml", "hello")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--junit missing/junit.xml: cannot write it: No such file or directory"))
        let folder = try project.run("--report", "run.json", "--trace", "folder", "hello")
        #expect(folder.status == 2)
        #expect(folder.stderr.contains("--trace folder: cannot write it: it is a directory"))
        let slash = try project.run("--trace", "new/", "hello")
        #expect(slash.status == 2)
        #expect(slash.stderr.contains("--trace new/: cannot write it: it is a directory"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: project.url.path).sorted() == ["Tasksfile.yaml", "folder"])
    }

    /// Whether the temporary folder can hold unnamed files (`O_TMPFILE`); where not, opsrun names
    /// its temporary file `FILE.PID.tmp` from the start.
    static let unnamedFilesWork: Bool = {
        let descriptor = open(NSTemporaryDirectory(), 0o20_000_000 | O_DIRECTORY | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
        return descriptor >= 0
    }()

    @Test(.enabled(if: unnamedFilesWork))
    func whileTheRunLastsTheReportIsNotInItsFolderYet() throws {
        // Tasks that list or archive the folder see no half-written or temporary file.
        let project = try TemporaryProject("tasks:\n  look: ls -a out > seen\n", files: ["out/.keep": ""])
        let result = try project.run("--report", "out/run.json", "--junit", "out/junit.xml", "look")
        #expect(result.status == 0)
        let seen = try String(contentsOfFile: project.path("seen"), encoding: .utf8)
        #expect(seen == ".\n..\n.keep\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: project.path("out")).sorted() == [".keep", "junit.xml", "run.json"])
    }

    @Test func theJUnitFileIsWellFormedXMLWithOneTestCasePerTask() throws {
        let project = try TemporaryProject("""
            default: all
            tasks:
              odd.name:x: { run: 'printf "\\033[31mred\\033[0m\\001 <b>&</b>\\n"; exit 1' }
              ok: echo ok
              all: { deps: [odd.name:x, ok] }
            """)
        let result = try project.run("-k", "--junit", "junit.xml")
        #expect(result.status == 1, "\(result.stderr)")
        let parsed = try JUnitFile(contentsOf: project.path("junit.xml"))
        #expect(parsed.testCases == ["odd.name:x", "ok", "all"])
        #expect(parsed.failureText == ["red <b>&</b>\n"])
        #expect(parsed.skippedMessages == ["prerequisite 'odd.name:x' failed"])
    }

    @Test func aGroupIsRecordedAsSucceededWithoutTimes() throws {
        let project = try TemporaryProject("default: all\ntasks:\n  a: echo a\n  all: { deps: [a] }\n")
        #expect(try project.run("--report", "run.json").status == 0)
        let all = try #require(try tasks(json(project.path("run.json")))["all"])
        #expect(all["state"] as? String == "succeeded")
        #expect(all["attempts"] as? Int == 1)
        #expect(all["start"] is NSNull && all["exit_status"] is NSNull)
    }
}

/// What an XML parser makes of a `--junit` file: the test case names, the text of each
/// `<failure>` and the message of each `<skipped>` and `<error>`, in order. Throws if it is not well formed.
private final class JUnitFile: NSObject, XMLParserDelegate {
    var testCases: [String] = []
    var failureText: [String] = []
    var skippedMessages: [String] = []
    var errorMessages: [String] = []
    private var inFailure = false

    init(contentsOf path: String) throws {
        super.init()
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    }

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        switch element {
        case "testcase": testCases.append(attributes["name"] ?? "")
        case "failure":
            inFailure = true
            failureText.append("")
        case "skipped": skippedMessages.append(attributes["message"] ?? "")
        case "error": errorMessages.append(attributes["message"] ?? "")
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inFailure { failureText[failureText.count - 1] += string }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "failure" { inFailure = false }
    }
}
