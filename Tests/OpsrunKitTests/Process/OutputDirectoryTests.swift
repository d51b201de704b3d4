import Foundation
import Testing

@testable import OpsrunCore
@testable import OpsrunEngine
@testable import OpsrunProcess

/// Before a job's first command the runner makes the parents of its declared outputs (docs/manual/each.md),
/// as ninja does; one it cannot make fails the job with the reason.
@Suite struct OutputDirectoryTests {
    @Test func outputDirectoriesAreMadeBeforeTheFirstCommand() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        var job = makeJob(["ls -d build/obj/deep other && touch build/obj/deep/a.o"], directory: directory)
        job.outputs = ["build/obj/deep/a.o", "other/x", directory + "/other/y", "dist/*.tgz"]
        let log = RunnerDriver().runJob(job)
        #expect(log.result?.succeeded == true, "\(log.errorText)")
        #expect(log.outputText == "build/obj/deep\nother\n")
    }

    @Test func theDepfilesDirectoryIsMadeToo() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        var job = makeJob(["ls -d deps && touch deps/a.d"], directory: directory)
        job.depfile = "deps/a.d"
        let log = RunnerDriver().runJob(job)
        #expect(log.result?.succeeded == true, "\(log.errorText)")
        #expect(log.outputText == "deps\n")
    }

    @Test func aDirectoryThatCannotBeMadeFailsTheJobWithoutStartingIt() throws {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: directory + "/build"))
        var job = makeJob(["echo never"], directory: directory)
        job.outputs = ["build/obj/a.o"]
        let log = RunnerDriver().runJob(job)
        // The file in the way is named, not the directory that could not be made beneath it.
        #expect(log.result?.spawnFailure == "cannot create output directory 'build' (for 'build/obj'): a file is in the way")
        #expect(log.result?.succeeded == false)
        #expect(log.commandsStarted.isEmpty && log.standardOutput.isEmpty)

        job.outputs = ["build/a.o"]
        #expect(RunnerDriver().runJob(job).result?.spawnFailure == "cannot create output directory 'build': a file is in the way")
    }

    @Test func theFailingParentIsNamed() throws {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        // A dangling link where a parent should be.
        try FileManager.default.createSymbolicLink(atPath: directory + "/out", withDestinationPath: "/nonexistent/opsrun-x")
        var job = makeJob(["echo never"], directory: directory)
        job.outputs = ["out/x/a.o"]
        #expect(RunnerDriver().runJob(job).result?.spawnFailure
            == "cannot create output directory 'out' (for 'out/x'): a file is in the way")
    }

    @Test func directoriesAreMadeAsMkdirDashP() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        #expect(Directories.make(directory + "/a/b/../c/") == nil)
        #expect(FileManager.default.fileExists(atPath: directory + "/a/c"))
        #expect(Directories.make(directory + "/a/c") == nil)
        #expect(Directories.parentPath(of: "a/b/c") == "a/b")
        #expect(Directories.parentPath(of: "a/b/") == "a")
        #expect(Directories.parentPath(of: "/a") == "/")
        #expect(Directories.parentPath(of: "a") == "")
    }
}
