import Foundation
import Testing

/// docs/manual/manifest.md through the real binary: which manifest `-f` and `-C` name, and how messages name it
/// (as seen from the directory opsrun was started in, so an editor can jump to it).
@Suite struct ManifestPathsTests {
    static let broken = "tasks:\n  build:\n    dpes: [x]\n    run: make\n"

    @Test func errorsUnderCNameTheManifestFromTheStartDirectory() throws {
        let project = try TemporaryProject("tasks:\n  top: echo top\n", files: ["sub/Tasksfile.yaml": Self.broken])
        let result = try project.run("-C", "sub", "build")
        #expect(result.status == 2)
        #expect(result.stderr == """
            sub/Tasksfile.yaml:3:5: error: unknown key 'dpes' in task 'build'; did you mean 'deps'?
                dpes: [x]
                ^

            """)
        let unknown = try project.run("-C", "sub/", "-f", "../Tasksfile.yaml", "tpo")
        #expect(unknown.stderr == "error: unknown task 'tpo' (not in sub/../Tasksfile.yaml); did you mean 'top'?\n")
    }

    @Test func aManifestFoundAboveCIsNamedThroughC() throws {
        let project = try TemporaryProject(Self.broken, files: ["sub/deeper/.keep": ""])
        let result = try project.run("-C", "sub/deeper", "build")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("sub/deeper/../../Tasksfile.yaml:3:5: error: unknown key 'dpes'"))
    }

    @Test func errorsInAFileNamedWithFAndCNameItFromTheStartDirectory() throws {
        let project = try TemporaryProject("tasks:\n  top: echo top\n", files: ["sub/ci.yaml": Self.broken])
        let result = try project.run("-C", "sub", "-f", "ci.yaml", "build")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("sub/ci.yaml:3:5: error: unknown key 'dpes' in task 'build'"))
    }

    @Test func errorsInADotenvFileUnderCNameItFromTheStartDirectory() throws {
        let project = try TemporaryProject("tasks:\n  top: echo top\n", files: [
            "sub/Tasksfile.yaml": "dotenv: [.env]\ntasks:\n  hello: echo hi\n",
            "sub/.env": "GOOD=1\nnot a line\n",
        ])
        let result = try project.run("-C", "sub", "hello")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("sub/.env:2:1: error: "))
    }

    /// `root/real/inner/` and `root/link -> real/inner`: the kernel reads `link/..` as `real`,
    /// where a textual `..` would read it as `root`.
    func projectBehindALink() throws -> TemporaryProject {
        let project = try TemporaryProject("tasks:\n  textual: echo wrong\n", files: [
            "real/Tasksfile.yaml": "tasks:\n  behind-the-link: echo right\n",
            "real/inner/.keep": "",
        ])
        try FileManager.default.createSymbolicLink(atPath: project.path("link"), withDestinationPath: "real/inner")
        return project
    }

    @Test func fThroughALinkAndDotDotReadsWhatTheKernelOpens() throws {
        let project = try projectBehindALink()
        let result = try project.run("-f", "link/../Tasksfile.yaml", "-l")
        #expect(result.stderr == "")
        #expect(result.stdout == "behind-the-link\n")
    }

    @Test func cThroughALinkAndDotDotStartsWhereTheKernelGoes() throws {
        let project = try projectBehindALink()
        let result = try project.run("-C", "link/..", "-l")
        #expect(result.stderr == "")
        #expect(result.stdout == "behind-the-link\n")
        let unknown = try project.run("-C", "link/..", "nope")
        #expect(unknown.stderr == "error: unknown task 'nope' (not in link/../Tasksfile.yaml)\n")
    }
}
