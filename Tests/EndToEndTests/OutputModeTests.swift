import Foundation
import Testing

/// docs/manual/output-and-reports.md through the real binary (off a terminal: one line per task start and end).
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

    /// Issue 29: a prefix (`compile[src/a.c] | src/a.c:3:1: error`) hides a compiler's diagnostic
    /// from the `file:line:col` problem matchers of CI and editors. Under GitHub Actions, without
    /// `--output`, output is grouped: each task's lines bare, in its own fold, so concurrent
    /// tasks stay told apart and the matcher reads each diagnostic as the compiler wrote it.
    @Test func underGitHubActionsACompilersDiagnosticIsALineAProblemMatcherReads() throws {
        let project = try TemporaryProject(
            """
            tasks:
              compile:
                each: { SRC: [src/a.c, src/b.c] }
                run: |
                  echo "$SRC:3:1: error: expected ';' before '}' token" >&2; exit 1
            """)
        let result = try project.run("-k", "-j", "2", "compile", environment: ["GITHUB_ACTIONS": "true"])
        #expect(result.status == 1)
        let stdout = result.stdout.replacing(/[0-9.]+s\)/, with: "Ns)")
        for file in ["src/a.c", "src/b.c"] {
            #expect(stdout.contains("""
                ::group::compile[\(file)] (failed: exit 1 after Ns)
                \(file):3:1: error: expected ';' before '}' token
                ::endgroup::

                """), "\(result.stdout)")
        }
        // `--output grouped` does the same anywhere (an editor's task, another CI).
        let grouped = try project.run("-k", "-j", "2", "--output", "grouped", "compile")
        let lines = grouped.stdout.split(separator: "\n")
        #expect(lines.contains("src/a.c:3:1: error: expected ';' before '}' token"), "\(grouped.stdout)")
        // `--output` given still wins under GitHub Actions.
        let prefixed = try project.run("-k", "--output", "prefixed", "compile", environment: ["GITHUB_ACTIONS": "true"])
        #expect(prefixed.stderr.contains("compile[src/a.c] | src/a.c:3:1: error"), "\(prefixed.stderr)")
    }
}
