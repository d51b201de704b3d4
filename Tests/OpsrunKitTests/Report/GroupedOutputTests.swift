import Testing

@testable import OpsrunKit
@testable import OpsrunEngine
@testable import OpsrunReport

@Suite struct GroupedOutputTests {
    let specs = [task("compile"), task("test")]
    let events: [RunEvent] = [
        start(0), start(1), out(0, "a1\n"), err(1, "t1\n"), err(0, "e1\n"), out(0, "a2"),
        succeeded(1, 0, 0.4), failed(0, .exited(2), 0, 1.3),
    ]

    @Test func eachTaskOutputComesInOneBlockUnderItsResultWhenItEnds() {
        let transcript = printed(specs, options: RunPrinter.Options(outputMode: .grouped), events)
        #expect(
            transcript.standardOutput == """
                ▶ compile
                ▶ test
                ── test ── ok 0.4s
                t1
                ── compile ── failed: exit 2 after 1.3s
                a1
                e1
                a2

                """)
        #expect(transcript.standardError == "")
    }

    /// A fold with nothing in it is one line, not a title to click open on nothing.
    @Test func underGithubActionsATaskThatWroteNothingIsOneLineNotAnEmptyFold() {
        let options = RunPrinter.Options(outputMode: .grouped, githubActions: true)
        let transcript = printed(specs, options: options, [start(0), start(1), succeeded(1, 0, 0.4), out(0, "a1\n"), succeeded(0, 0, 0.5)])
        #expect(
            transcript.standardOutput == """
                ▶ compile
                ▶ test
                test (ok 0.4s)
                ::group::compile (ok 0.5s)
                a1
                ::endgroup::

                """)
    }

    @Test func githubActionsFoldsEachBlockAndAnnotatesTheFailure() {
        let options = RunPrinter.Options(outputMode: .grouped, githubActions: true)
        let transcript = printed(specs, options: options, events)
        #expect(
            transcript.standardOutput == """
                ▶ compile
                ▶ test
                ::group::test (ok 0.4s)
                t1
                ::endgroup::
                ::group::compile (failed: exit 2 after 1.3s)
                a1
                e1
                a2
                ::endgroup::
                ::error title=compile::compile failed: exit 2

                """)
    }

    @Test func annotationsEscapeTaskNamesAndAllowedFailuresAreWarnings() {
        let options = RunPrinter.Options(githubActions: true)
        let transcript = printed(
            [task("ci:lint,x"), task("docs%", allowFailure: true)], options: options,
            [
                start(0), failed(0, .exited(3), 0, 1), start(1),
                .finished(index: 1, .failedAllowed, result: result(.exited(1), 0, 0.2)),
            ])
        #expect(
            transcript.standardOutput == """
                ▶ ci:lint,x
                ✗ ci:lint,x exit 3 after 1.0s
                ::error title=ci%3Alint%2Cx::ci:lint,x failed: exit 3
                ▶ docs%
                ⚠ docs% failed (allowed): exit 1 after 0.2s
                ::warning title=docs%25::docs%25 failed (allowed to fail): exit 1

                """)
    }

    @Test func outputBeyondTheMemoryLimitComesBackWholeFromTheSpool() {
        let options = RunPrinter.Options(outputMode: .grouped, isTerminal: true)
        let lines = (1...200).map { "line \($0)\n" }
        let transcript = printed(
            [task("big")], options: options, spoolMemoryLimit: 64,
            [start(0)] + lines.map { out(0, $0) } + [succeeded(0, 0, 3)])
        #expect(
            transcript.combined == "[0/1] running: big" + clear + "── big ── ok 3.0s\n"
                + lines.joined() + "[1/1]" + clear)
    }

    @Test func retriesKeepEveryAttemptInTheBlockWithTheEchoedCommands() {
        let options = RunPrinter.Options(outputMode: .grouped, verbosity: .verbose)
        let transcript = printed(
            [task("a", ["make"], retries: 1)], options: options,
            [
                start(0), .commandStarted(index: 0, commandIndex: 0), out(0, "half"),
                .retrying(index: 0, nextAttempt: 2, previous: result(.exited(1), 0, 0.2)),
                start(0, attempt: 2), .commandStarted(index: 0, commandIndex: 0), out(0, "whole\n"),
                succeeded(0, 0.2, 0.5),
            ])
        #expect(
            transcript.standardOutput == """
                ▶ a
                ↻ a attempt 2 of 2 (exit 1)
                ── a ── ok 0.5s
                $ make
                half
                $ make
                whole

                """)
    }

    @Test func colourPaintsTheHeader() {
        let options = RunPrinter.Options(
            outputMode: .grouped, style: TerminalStyle(enabled: true), isTerminal: true,
            terminalWidth: 80)
        let transcript = printed(
            [task("a")], options: options, [start(0), failed(0, .exited(1), 0, 1)])
        let e = "\u{1B}["
        #expect(
            transcript.combined == "[0/1] running: a" + clear
                + "\(e)2m──\(e)0m \(e)1ma\(e)0m \(e)2m──\(e)0m \(e)31mfailed: exit 1 after 1.0s\(e)0m\n"
                + "[1/1]" + clear)
    }
}

@Suite struct QuietAndInterleavedTests {
    let specs = [task("a"), task("b", retries: 1), task("c")]
    let events: [RunEvent] = [
        start(0), start(1), out(0, "fine\n"), out(1, "bad\n"),
        .retrying(index: 1, nextAttempt: 2, previous: result(.exited(1), 0, 0.5)),
        start(1, attempt: 2),
        err(1, "worse"), succeeded(0, 0, 1), failed(1, .exited(1), 0.5, 1.5),
        .cancelled(index: 2, .prerequisiteFailed(prerequisite: 1)),
        .runStopping(.failure(index: 1)),
    ]

    @Test func quietPrintsOnlyTheFailedTaskWithItsOutput() {
        let transcript = printed(specs, options: RunPrinter.Options(verbosity: .quiet), events)
        #expect(transcript.combined == "── b ── failed after 2 attempts: exit 1\nbad\nworse\n")
    }

    @Test func quietUnderGitHubActionsFoldsAndAnnotatesTheFailure() {
        let options = RunPrinter.Options(
            outputMode: .interleaved, verbosity: .quiet, githubActions: true)
        let transcript = printed(specs, options: options, events)
        #expect(
            transcript.combined == """
                ::group::b (failed after 2 attempts: exit 1)
                bad
                worse
                ::endgroup::
                ::error title=b::b failed after 2 attempts: exit 1

                """)
    }

    @Test func quietPrintsNothingForARunThatSucceeds() {
        let transcript = printed(
            [task("a")], options: RunPrinter.Options(verbosity: .quiet),
            [
                start(0), out(0, "lots\n"), err(0, "noise\n"), succeeded(0, 0, 1),
            ])
        #expect(transcript.combined == "")
    }

    @Test func interleavedPassesBytesThroughToTheirStreamAsTheyCome() {
        let transcript = printed(
            [task("a"), task("b")], options: RunPrinter.Options(outputMode: .interleaved),
            [
                start(0), start(1), out(0, "par"), err(1, "tial"), out(1, "b\n"), out(0, "t\n"),
                succeeded(0, 0, 1), succeeded(1, 0, 2),
            ])
        #expect(
            transcript.writes.map(\.text) == [
                "▶ a\n", "▶ b\n", "par", "tial", "b\n", "t\n", "✓ a 1.0s\n", "✓ b 2.0s\n",
            ])
        #expect(transcript.standardError == "tial")
    }

    @Test func interleavedVerboseEchoesWithTheTaskName() {
        let options = RunPrinter.Options(outputMode: .interleaved, verbosity: .verbose)
        let transcript = printed(
            [task("compile", ["cc -c main.c"])], options: options,
            [
                start(0), .commandStarted(index: 0, commandIndex: 0), out(0, "done\n"),
                succeeded(0, 0, 1),
            ])
        #expect(
            transcript.standardOutput == "▶ compile\ncompile $ cc -c main.c\ndone\n✓ compile 1.0s\n"
        )
    }
}
