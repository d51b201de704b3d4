import Foundation
import Testing

/// SPEC §7 through the real binary (off a terminal: one line per task start and end).
@Suite struct OutputModeTests {
    let project: TemporaryProject

    init() throws {
        project = try TemporaryProject("""
            tasks:
              ok: printf 'one\\ntwo'
              bad: echo oops >&2; exit 4
            """)
    }

    @Test func prefixedPrintsWholeLinesWithTheTaskNameAndTheLastLineWithoutNewline() throws {
        let result = try project.run("ok")
        #expect(result.status == 0)
        #expect(result.stdout.replacing(/[0-9.]+s\n/, with: "Ns\n") == """
            ▶ ok
            ok | one
            ok | two
            ✓ ok Ns
            1 succeeded

            """)
    }

    @Test func aStartLineIsOutBeforeTheRunWaitsForTheTask() throws {
        // opsrun holds its lines until it waits: the task sees its own start line in opsrun's
        // standard output (a file here) while it runs, or it times out.
        let waiting = try TemporaryProject("""
            tasks:
              waits:
                run: until grep -q '▶ waits' /proc/$PPID/fd/1; do sleep 0.05; done
                timeout: 10s
            """)
        let result = try waiting.run("waits")
        #expect(result.status == 0)
        #expect(result.stdout.contains("✓ waits"))
    }

    @Test func groupedPrintsATasksOutputInOneBlockUnderItsResult() throws {
        let result = try project.run("ok", "--output", "grouped")
        #expect(result.stdout.replacing(/[0-9.]+s\n/, with: "Ns\n").contains("── ok ── ok Ns\none\ntwo"))
    }

    @Test func interleavedPassesOutputThroughAsIs() throws {
        let result = try project.run("ok", "--output", "interleaved")
        #expect(result.stdout.contains("one\ntwo"))
        #expect(!result.stdout.contains("ok | "))
    }

    @Test func quietPrintsOnlyFailuresAndTheSummary() throws {
        let result = try project.run("-q", "-k", "ok", "bad")
        #expect(result.status == 1)
        #expect(!result.stdout.contains("one"))
        #expect(!result.stdout.contains("▶"))
        #expect(result.stdout.contains("oops"))
        #expect(squeezed(result.stdout).contains("FAILED bad exit 4 after"))
    }

    @Test func verboseEchoesEachCommand() throws {
        let result = try project.run("-v", "ok")
        #expect(result.stdout.contains("ok | $ printf 'one\\ntwo'\n"))
    }

    @Test func githubActionsFoldsGroupsAndAnnotatesFailures() throws {
        let result = try project.run("--output", "grouped", "-k", "ok", "bad", environment: ["GITHUB_ACTIONS": "true"])
        #expect(result.stdout.contains("::group::ok"))
        #expect(result.stdout.contains("::endgroup::"))
        #expect(result.stdout.contains("::error title=bad::bad failed: exit 4"))
    }

    @Test func colourFollowsTheColorOption() throws {
        let plain = try project.run("ok")
        #expect(!plain.stdout.contains("\u{1B}["))
        let coloured = try project.run("ok", "--color", "always")
        #expect(coloured.stdout.contains("\u{1B}["))
    }
}
