import Foundation
import Testing

/// `.opsrun/` beside the manifest (docs/manual/up-to-date.md), shared by every manifest of the directory and every
/// opsrun started there.
@Suite struct StateDirectoryTests {
    /// Issue 13, item 9: two manifests in one directory, each with a task `gen`.
    @Test func twoManifestsInOneDirectoryKeepTheirOwnRecords() throws {
        let project = try TemporaryProject("tasks: {}\n", files: [
            "a.yaml": "tasks:\n  gen: { sources: [a.in], outputs: [a.out], run: cp a.in a.out }\n",
            "b.yaml": "tasks:\n  gen: { sources: [b.in], outputs: [b.out], run: \"cp b.in b.out && test ! -e fail\" }\n",
            "a.in": "a\n", "b.in": "b\n",
        ])
        #expect(try project.run("-f", "a.yaml", "gen").status == 0)
        #expect(try project.run("-f", "b.yaml", "gen").status == 0)
        #expect(try project.run("-f", "a.yaml", "gen").stdout == "0 succeeded, 1 up to date\n")
        #expect(try project.run("-f", "b.yaml", "gen").stdout == "0 succeeded, 1 up to date\n")
        // One's failure is not the other's.
        try "b2\n".write(toFile: project.path("b.in"), atomically: false, encoding: .utf8)
        try "".write(toFile: project.path("fail"), atomically: false, encoding: .utf8)
        #expect(try project.run("-f", "b.yaml", "gen").status == 1)
        #expect(try project.run("-f", "a.yaml", "gen", "--explain").stdout == "0 succeeded, 1 up to date\n")
    }

    /// Issue 13, item 12: the first run of a project holds the state's lock from its start, so a
    /// second one started meanwhile is told, as it is once `.opsrun/` exists.
    @Test func aSecondRunDuringTheFirstRunOfAProjectIsWarned() throws {
        let project = try TemporaryProject("""
            tasks:
              slow:
                sources: [in.txt]
                outputs: [slow.out]
                run: touch slow.started; for i in $(seq 300); do [ -e release ] && break; sleep 0.1; done; cp in.txt slow.out
              quick: { sources: [in.txt], outputs: [quick.out], run: cp in.txt quick.out }
            """, files: ["in.txt": "in\n"])
        let first = try OpsrunBinary.start(["slow"], in: project.url)
        // Whatever happens below, the first run ends before the project is removed.
        defer {
            try? "".write(toFile: project.path("release"), atomically: false, encoding: .utf8)
            _ = first.wait(seconds: 30)
        }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && !FileManager.default.fileExists(atPath: project.path("slow.started")) { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: project.path("slow.started")))
        let second = try project.run("quick")
        #expect(second.status == 0)
        #expect(second.stderr.hasSuffix(
            "/.opsrun/state: warning: in use by another opsrun; this run neither trusts nor records it (every task runs)\n"))
    }

    /// Issue 13, item 12: `.opsrun/` made by a first attempt that stopped before its `.gitignore`.
    @Test func aMissingGitignoreInTheStateDirectoryIsWritten() throws {
        let project = try TemporaryProject("""
            tasks:
              gen: { sources: [in.txt], outputs: [out.txt], run: cp in.txt out.txt }
            """, files: ["in.txt": "in\n"])
        try FileManager.default.createDirectory(atPath: project.path(".opsrun"), withIntermediateDirectories: false)
        #expect(try project.run("gen").status == 0)
        #expect(try String(contentsOfFile: project.path(".opsrun/.gitignore"), encoding: .utf8) == "*\n")
    }
}
