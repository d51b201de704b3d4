import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Inputs far larger than usual, through the real binary: what opsrun prints stays bounded, and it
/// finishes. Deadlines are generous (a debug build on a busy machine); the code they guard against
/// took minutes.
@Suite struct LargeInputTests {
    /// Runs opsrun and waits at most `seconds` (then kills it, and the test fails).
    func run(
        _ arguments: [String], in project: TemporaryProject, within seconds: Double,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> OpsrunBinary.Result {
        try OpsrunBinary.start(arguments, in: project.url).wait(seconds: seconds, sourceLocation: sourceLocation)
    }

    @Test func aThousandReferencesToAMisspeltTaskAmongManyAreReportedQuickly() throws {
        // 20,000 tasks; every 20th depends on 'complie'. The suggestion used to be searched again
        // for each reference: 1,000 searches of 20,000 names.
        var yaml = "tasks:\n  compile: echo c\n"
        for i in 0..<20_000 {
            yaml += i % 20 == 0 ? "  t\(i): { deps: [complie], run: echo }\n" : "  t\(i): echo\n"
        }
        let project = try TemporaryProject(yaml)
        let result = try run(["-l"], in: project, within: 60)
        #expect(result.status == 2)
        let errors = result.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(errors.count == 1_000)
        #expect(errors.allSatisfy { $0.hasSuffix("in deps of '\($0.split(separator: "'")[3])'; did you mean 'compile'?") })
    }

    @Test func manyDifferentMisspellingsAmongManyTasksAreReportedQuickly() throws {
        // 100,000 tasks and 1,000 different misspelt names: searches beyond a bounded budget give
        // no suggestion; the first ones still have theirs.
        var yaml = "tasks:\n"
        for i in 0..<100_000 {
            yaml += i % 100 == 1 ? "  task\(i): { deps: [tsak\(i - 1)], run: echo }\n" : "  task\(i): echo\n"
        }
        let project = try TemporaryProject(yaml)
        let result = try run(["-l"], in: project, within: 90)
        #expect(result.status == 2)
        let errors = result.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(errors.count == 1_000)
        #expect(errors.first == "Tasksfile.yaml:3:19: error: unknown task 'tsak0' in deps of 'task1'; did you mean 'task0'?")
        #expect(errors.last == "Tasksfile.yaml:99903:23: error: unknown task 'tsak99900' in deps of 'task99901'")
    }

    @Test func anErrorOnAHundredKilobyteLineQuotesAWindowAroundItsColumn() throws {
        let line = "  line: { run: \"" + String(repeating: "x", count: 100_000) + "\", bogus: 1, run2: \"" + String(repeating: "z", count: 100) + "\" }"
        let project = try TemporaryProject("tasks:\n" + line + "\n")
        let result = try project.run("-l")
        #expect(result.status == 2)
        // 120 characters of the line, cut ends shown as "...", the caret still under 'bogus'.
        let window = String(repeating: "x", count: 57) + "\", bogus: 1, run2: \"" + String(repeating: "z", count: 43)
        #expect(result.stderr == """
            Tasksfile.yaml:2:100020: error: unknown key 'bogus' in task 'line'
            ...\(window)...
            \(String(repeating: " ", count: 63))^
            Tasksfile.yaml:2:100030: error: unknown key 'run2' in task 'line'; did you mean 'run'?
            ...\(String(window.dropFirst(10)))\(String(repeating: "z", count: 10))...
            \(String(repeating: " ", count: 63))^

            """)
    }

    /// A manifest of one chain: t0 needs t1, which needs t2, ... down to t(n-1).
    static func chain(_ n: Int) -> String {
        var yaml = "tasks:\n"
        for i in 0..<(n - 1) { yaml += "  t\(i): { deps: [t\(i + 1)], run: echo }\n" }
        return yaml + "  t\(n - 1): echo\n"
    }

    @Test func theGraphOfATenThousandDeepChainStaysSmall() throws {
        // It printed 190 MiB: four more columns of indent on every line.
        let project = try TemporaryProject(Self.chain(10_000))
        let result = try run(["--graph"], in: project, within: 120)
        #expect(result.status == 0)
        #expect(result.stdout.utf8.count < 1_000_000)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 10_000)
        #expect(lines[16] == Substring(String(repeating: " ", count: 60) + "└── t16"))
        #expect(lines[17] == Substring(String(repeating: " ", count: 64) + "└── [17] t17"))
        #expect(lines.last == Substring(String(repeating: " ", count: 64) + "└── [9999] t9999"))
    }

    @Test func theGraphOfAHundredThousandDeepChainIsDrawn() throws {
        // It ran out of memory building one string of some 20 GB.
        let project = try TemporaryProject(Self.chain(100_000))
        let result = try run(["--graph"], in: project, within: 120)
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("\n" + String(repeating: " ", count: 64) + "└── [99999] t99999\n"))
    }
}
