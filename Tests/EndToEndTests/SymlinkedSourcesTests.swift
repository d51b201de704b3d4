import Foundation
import Testing

/// Sources reached through a symbolic link to a directory count, as the shell would see them
/// (issue 13, item 7).
@Suite struct SymlinkedSourcesTests {
    static let manifest = """
        tasks:
          globbed: { sources: ["src/**/*.c"], outputs: [globbed.txt], run: cat src/*.c src/shared/*.c > globbed.txt }
          whole: { sources: [src], outputs: [whole.txt], run: cat src/*.c src/shared/*.c > whole.txt }
        """

    @Test func editingAFileInALinkedDirectoryRerunsTheTasksThatReadIt() throws {
        let project = try TemporaryProject(Self.manifest, files: ["src/x.c": "int x;\n", "shared/y.c": "int y;\n"])
        try FileManager.default.createSymbolicLink(atPath: project.path("src/shared"), withDestinationPath: "../shared")
        #expect(try project.run("globbed", "whole").status == 0)
        #expect(try project.run("globbed", "whole").stdout == "0 succeeded, 2 up to date\n")
        try "int y = 2;\n".write(toFile: project.path("shared/y.c"), atomically: false, encoding: .utf8)
        let result = try project.run("globbed", "whole", "--explain")
        #expect(result.status == 0)
        #expect(result.stdout.contains("globbed runs: source src/shared/y.c changed\n"))
        #expect(result.stdout.contains("whole runs: source src/shared/y.c changed\n"))
        #expect(try String(contentsOfFile: project.path("whole.txt"), encoding: .utf8) == "int x;\nint y = 2;\n")
    }

    @Test func aLinkLoopAmongTheSourcesNeitherHangsNorExplodes() throws {
        let project = try TemporaryProject(Self.manifest, files: ["src/x.c": "int x;\n", "shared/y.c": "int y;\n"])
        try FileManager.default.createSymbolicLink(atPath: project.path("src/shared"), withDestinationPath: "../shared")
        try FileManager.default.createSymbolicLink(atPath: project.path("shared/loop"), withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: project.path("src/self"), withDestinationPath: ".")
        for _ in 0..<2 {
            let running = try OpsrunBinary.start(["globbed", "whole"], in: project.url)
            let result = try #require(running.wait(seconds: 30), "opsrun did not finish within 30 s")
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
    }
}
