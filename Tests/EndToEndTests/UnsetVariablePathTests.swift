import Foundation
import Testing

/// A path that an unset variable turns absolute or empty is an error before anything runs
/// (docs/manual/variables.md): `${OUTDIR}/x` with OUTDIR unset would write `/x`.
@Suite struct UnsetVariablePathTests {
    @Test func anUnsetVariableThatMakesAPathAbsoluteIsAnError() throws {
        let project = try TemporaryProject("""
            tasks:
              gen:
                outputs: ["${OUTDIR}/x"]
                run: touch ran
              read:
                dir: ${WORK}/sub
                sources: ["${SRCDIR}/a.c"]
                depfile: "${EMPTY}/a.d"
                run: touch ran
              fine:
                sources: [/bin/sh, "${ROOT:-/bin}/sh"]
                outputs: [out]
                run: touch out
            """)
        let result = try project.run("-j", "1", "gen", "read", "EMPTY=")
        #expect(result.status == 2)
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
        let lines = result.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        let expected: [String] = [
            "Tasksfile.yaml:3:15: error: outputs of 'gen': '${OUTDIR}/x' is '/x' because OUTDIR is not set; "
                + "set it or give a default: ${OUTDIR:-build}/x",
            "Tasksfile.yaml:6:10: error: dir of 'read': '${WORK}/sub' is '/sub' because WORK is not set; "
                + "set it or give a default: ${WORK:-build}/sub",
            "Tasksfile.yaml:7:15: error: sources of 'read': '${SRCDIR}/a.c' is '/a.c' because SRCDIR is not set; "
                + "set it or give a default: ${SRCDIR:-build}/a.c",
            "Tasksfile.yaml:8:14: error: depfile of 'read': '${EMPTY}/a.d' is '/a.d' because EMPTY is empty; "
                + "set it or give a default: ${EMPTY:-build}/a.d",
        ]
        #expect(lines.map(String.init) == expected, "\(result.stderr)")
        // Written absolute on purpose, or through a default, a path is allowed.
        let fine = try project.run("fine")
        #expect(fine.status == 0, "\(fine.stderr)")
        // Set, they are paths like any other.
        let set = try project.run("-n", "gen", "OUTDIR=build")
        #expect(set.status == 0, "\(set.stderr)")
    }
}
