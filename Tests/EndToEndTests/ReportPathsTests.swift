import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/fitting-in.md through the real binary: what the paths of `--report`, `--junit` and `--trace` may
/// name. Regular files only, reached through symbolic links; `-` is standard output.
@Suite struct ReportPathsTests {
    static let manifest = "tasks:\n  hello: { run: echo hi; touch ran }\n"

    func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// A character device to aim a report at. As root, a node of its own in the project (the same
    /// device as /dev/null), so that code which replaced it would replace only that one; otherwise
    /// /dev/null itself, which only root could replace.
    func device(in project: TemporaryProject) -> String {
        guard getuid() == 0 else { return "/dev/null" }
        let path = project.path("null")
        var null = stat()
        #expect(stat("/dev/null", &null) == 0)
        #expect(mknod(path, S_IFCHR | 0o666, null.st_rdev) == 0)
        return path
    }

    @Test func aReportToADeviceIsAUsageErrorAndRunsNothing() throws {
        let project = try TemporaryProject(Self.manifest)
        let device = device(in: project)
        let result = try project.run("--report", device, "hello")
        #expect(result.status == 2)
        #expect(result.stderr == "error: --report \(device): cannot write it: it is a device; a report is a regular file, or - for standard output\n")
        #expect(fileType(device) == S_IFCHR)
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
    }

    @Test func aReportToAFIFOIsAUsageErrorAndRunsNothing() throws {
        let project = try TemporaryProject(Self.manifest)
        #expect(mkfifo(project.path("fifo"), 0o644) == 0)
        let result = try project.run("--junit", "fifo", "hello")
        #expect(result.status == 2)
        #expect(result.stderr == "error: --junit fifo: cannot write it: it is a FIFO; a report is a regular file, or - for standard output\n")
        #expect(fileType(project.path("fifo")) == S_IFIFO)
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
    }

    @Test func aSymbolicLinkIsFollowedNotReplaced() throws {
        let project = try TemporaryProject(Self.manifest, files: ["out/run.json": "old", "out/inner/.keep": ""])
        let manager = FileManager.default
        try manager.createSymbolicLink(atPath: project.path("run.json"), withDestinationPath: "out/run.json")
        // A link to a file not made yet: the file is made, the link stays.
        try manager.createSymbolicLink(atPath: project.path("junit.xml"), withDestinationPath: "out/junit.xml")
        try manager.createSymbolicLink(atPath: project.path("inner"), withDestinationPath: "out/inner")
        // `inner/..` is `out` to the kernel, wherever the link sits.
        let result = try project.run("--report", "run.json", "--junit", "junit.xml", "--trace", "inner/../trace.json", "hello")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(project.path("run.json")) == S_IFLNK)
        #expect(fileType(project.path("junit.xml")) == S_IFLNK)
        #expect(try String(contentsOfFile: project.path("out/run.json"), encoding: .utf8).hasPrefix("{\n  \"version\": 1,"))
        #expect(try String(contentsOfFile: project.path("out/junit.xml"), encoding: .utf8).hasPrefix("<?xml"))
        #expect(manager.fileExists(atPath: project.path("out/trace.json")))
        // `.opsrun` keeps how long `hello` took.
        #expect(try manager.contentsOfDirectory(atPath: project.url.path).sorted() == [".opsrun", "Tasksfile.yaml", "inner", "junit.xml", "out", "ran", "run.json"])
    }

    @Test func twoSpellingsOfOneFileThroughALinkAreRefused() throws {
        let project = try TemporaryProject(Self.manifest, files: ["out/.keep": ""])
        try FileManager.default.createSymbolicLink(atPath: project.path("link.json"), withDestinationPath: "out/r.json")
        let result = try project.run("--report", "out/r.json", "--trace", "link.json", "hello")
        #expect(result.status == 2)
        #expect(result.stderr == "error: --report and --trace name the same file, link.json\n")
    }

    @Test func aReportOnStandardOutputComesAloneThereAfterTheRun() throws {
        let project = try TemporaryProject(Self.manifest)
        let result = try project.run("--report", "-", "hello")
        #expect(result.status == 0)
        // The run's own output went to standard error, so standard output is the JSON alone.
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(report?["exit_code"] as? Int == 0)
        #expect(result.stderr.contains("hello | hi\n"))
        #expect(result.stderr.hasSuffix("1 succeeded\n"))
        #expect(!FileManager.default.fileExists(atPath: project.path("-")))
    }

    @Test func twoReportsOnStandardOutputAreAUsageError() throws {
        let project = try TemporaryProject(Self.manifest)
        let result = try project.run("--report", "-", "--junit", "-", "hello")
        #expect(result.status == 2)
        #expect(result.stderr == "error: --report and --junit both name standard output (-); only one report can go there\n")
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
    }
}
