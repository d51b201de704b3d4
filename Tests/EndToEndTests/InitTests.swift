import Foundation
import Testing

/// docs/manual/fitting-in.md: `opsrun --init` writes a commented starter manifest and never overwrites one.
@Suite struct InitTests {
    func emptyDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func initWritesAStarterThatListsAndRuns() throws {
        let directory = try emptyDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = try OpsrunBinary.run(["--init"], in: directory)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout == "wrote Tasksfile.yaml: edit it, then try 'opsrun --list'\n")
        let text = try String(contentsOf: directory.appendingPathComponent("Tasksfile.yaml"), encoding: .utf8)
        #expect(text.hasPrefix("# Tasksfile.yaml: "))
        let list = try OpsrunBinary.run(["--list"], in: directory)
        #expect(list.stdout == """
            setup            Make the build directory
            build (default)  Build the project
            test             Run the tests
            clean            Remove what the build made

            """)
        let run = try OpsrunBinary.run(["test"], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("3 succeeded\n"))
    }

    @Test func initRefusesToOverwriteAManifest() throws {
        let project = try TemporaryProject("tasks:\n  mine: echo mine\n")
        let again = try project.run("--init")
        #expect(again.status == 2)
        #expect(again.stderr == "error: Tasksfile.yaml already exists; --init never overwrites a manifest\n")
        #expect(try String(contentsOfFile: project.path("Tasksfile.yaml"), encoding: .utf8) == "tasks:\n  mine: echo mine\n")

        let yml = try emptyDirectory()
        defer { try? FileManager.default.removeItem(at: yml) }
        try "tasks: {}\n".write(to: yml.appendingPathComponent("Tasksfile.yml"), atomically: true, encoding: .utf8)
        let result = try OpsrunBinary.run(["--init"], in: yml)
        #expect(result.stderr == "error: Tasksfile.yml already exists; --init never overwrites a manifest\n")
        #expect(!FileManager.default.fileExists(atPath: yml.appendingPathComponent("Tasksfile.yaml").path))
    }

    @Test func initWritesWhereFAndCSay() throws {
        let project = try TemporaryProject("tasks:\n  mine: echo mine\n", files: ["sub/keep": ""])
        let named = try project.run("--init", "-f", "ci.yaml")
        #expect(named.status == 0, "\(named.stderr)")
        #expect(try project.run("-f", "ci.yaml", "--list").stdout.contains("build (default)"))
        #expect(try project.run("--init", "-f", "ci.yaml").stderr == "error: ci.yaml: already exists; --init never overwrites a file\n")
        let moved = try project.run("-C", "sub", "--init")
        #expect(moved.stdout == "wrote sub/Tasksfile.yaml: edit it, then try 'opsrun --list'\n")
        #expect(try project.run("--init", "build").stderr.hasPrefix("error: --init cannot be used with task names\n"))
    }
}
