import Foundation
import Testing

/// docs/manual/manifest.md through the real binary: how the bytes of a manifest are read as text.
@Suite struct ManifestEncodingTests {
    /// A project whose `Tasksfile.yaml` holds exactly `bytes`.
    func project(bytes: [UInt8]) throws -> TemporaryProject {
        let project = try TemporaryProject("")
        try Data(bytes).write(to: project.url.appendingPathComponent("Tasksfile.yaml"))
        return project
    }

    @Test func aManifestStartingWithAByteOrderMarkIsRead() throws {
        // libyaml skips the mark but counts it as a column, so a second top-level key looked
        // less indented than the first: a syntax error on line 2.
        let project = try project(bytes: [0xEF, 0xBB, 0xBF] + Array("version: 1\ntasks:\n  hello: echo hi\n".utf8))
        let result = try project.run("-q", "hello")
        #expect(result.stderr == "")
        #expect(result.status == 0)
        #expect(result.stdout.contains("1 succeeded"))
    }

    @Test func columnsAfterAByteOrderMarkAreCountedWithoutIt() throws {
        let project = try project(bytes: [0xEF, 0xBB, 0xBF] + Array("taks:\n  hello: echo hi\n".utf8))
        let result = try project.run("hello")
        #expect(result.status == 2)
        #expect(result.stderr == """
            Tasksfile.yaml:1:1: error: unknown top-level key 'taks'; did you mean 'tasks'?
            taks:
            ^
            Tasksfile.yaml:1:1: error: the manifest has no 'tasks' mapping
            taks:
            ^

            """)
    }

    @Test func aByteThatIsNotUTF8IsNamedByLineAndColumn() throws {
        // Latin-1 "é" (0xE9) in a description, as an editor set to Latin-1 would save it.
        let project = try project(bytes: Array("tasks:\n  hello:\n    desc: caf".utf8) + [0xE9] + Array(" au lait\n    run: echo hi\n".utf8))
        let result = try project.run("hello")
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == """
            Tasksfile.yaml:3:14: error: the manifest is not UTF-8 text: byte 0xE9 here is not UTF-8
                desc: caf\u{FFFD} au lait
                         ^

            """)
    }
}
