import Foundation
import Testing

/// `.opsrun/` beside the manifest (SPEC §5), shared by every manifest of the directory and every
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
}
