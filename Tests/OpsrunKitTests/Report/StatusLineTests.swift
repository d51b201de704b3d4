import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunEngine
@testable import OpsrunReport

@Suite struct StatusLineTests {
    func terminal(width: Int = 80, _ mode: OutputMode = .prefixed) -> RunPrinter.Options {
        RunPrinter.Options(outputMode: mode, isTerminal: true, terminalWidth: width)
    }

    @Test func aTerminalShowsProgressBelowTheOutputAndOnlyFailureLines() {
        let specs = [task("a"), task("b"), task("c"), task("d"), group("all")]
        let transcript = printed(
            specs, options: terminal(),
            [
                start(0), start(1), out(0, "x\n"), err(1, "warn\n"), succeeded(0, 0, 1),
                failed(1, .exited(1), 0, 1),
                .cancelled(index: 2, .prerequisiteFailed(prerequisite: 1)),
                start(4), .finished(index: 4, .succeeded, result: nil),
            ])
        #expect(
            transcript.combined
                == [
                    "[0/5] running: a", clear + "[0/5] running: a, b",
                    clear, "a | x\n", "[0/5] running: a, b",
                    clear, "b | warn\n", "[0/5] running: a, b",
                    clear + "[1/5] running: b",
                    clear, "✗ b exit 1 after 1.0s\n", "[2/5]",
                    clear,
                ].joined())
        #expect(transcript.standardError == "b | warn\n")
    }

    /// Ctrl-Z: the shell's `Stopped` line and prompt take the status line's place; after `fg` it
    /// is drawn again.
    @Test func theStatusLineIsClearedWhileTheRunIsSuspendedAndDrawnAgainAfter() {
        let transcript = printed(
            [task("a")], options: terminal(), [start(0), .runSuspending, .runContinued, succeeded(0, 0, 1)])
        #expect(transcript.combined == "[0/1] running: a" + clear + "[0/1] running: a" + clear + "[1/1]" + clear)
    }

    @Test func theStatusLineIsCutToTheTerminalWidth() {
        let transcript = printed(
            [task("alpha"), task("beta")], options: terminal(width: 21), [start(0), start(1)])
        // 20 columns fit in 21 (the last column is left free); 26 do not.
        #expect(
            transcript.combined == "[0/2] running: alpha" + clear + "[0/2] running: alph…" + clear)
    }

    @Test func statusTextCountsEndedTasksOfAllAndNamesRunningOnesInStartOrder() {
        let printer = RunPrinter(
            specs: [task("a"), task("b"), task("c"), group("g"), task("e")], options: terminal(),
            sinks: (
                TranscriptSink(transcript: Transcript(), stream: .standardOutput),
                TranscriptSink(transcript: Transcript(), stream: .standardError)
            ))
        for event in [
            start(2), start(0), start(1), succeeded(2, 0, 1), start(3),
            RunEvent.finished(index: 3, .succeeded, result: nil),
        ] {
            printer.handle(event)
        }
        #expect(printer.statusText == "[2/5] running: a, b")
    }

    @Test func retriesStillGetALineOnATerminal() {
        let transcript = printed(
            [task("a", retries: 2)], options: terminal(),
            [
                start(0), .retrying(index: 0, nextAttempt: 2, previous: result(.signaled(9), 0, 1)),
                start(0, attempt: 2), succeeded(0, 1, 2),
            ])
        #expect(
            transcript.combined
                == [
                    "[0/1] running: a", clear, "↻ a attempt 2 of 3 (killed by SIGKILL)\n",
                    "[0/1] running: a",
                    clear + "[1/1]", clear,
                ].joined())
    }

    @Test func anInteractiveTaskHasTheTerminalWithoutAStatusLine() {
        let transcript = printed(
            [task("a"), task("shell", interactive: true)], options: terminal(),
            [
                start(0), succeeded(0, 0, 1), start(1), succeeded(1, 1, 2),
            ])
        #expect(
            transcript.combined == "[0/2] running: a" + clear + "[1/2]" + clear + "[2/2]" + clear)
    }

    @Test func interleavedOutputDrawsNoStatusInTheMiddleOfALine() {
        let transcript = printed(
            [task("a")], options: terminal(.interleaved),
            [
                start(0), out(0, "par"), out(0, "t\n"), succeeded(0, 0, 1),
            ])
        #expect(
            transcript.combined == "[0/1] running: a" + clear + "par" + "t\n" + "[0/1] running: a"
                + clear + "[1/1]" + clear)
    }

    @Test func quietShowsNoStatusLine() {
        var options = terminal()
        options.verbosity = .quiet
        let transcript = printed(
            [task("a")], options: options, [start(0), out(0, "x\n"), succeeded(0, 0, 1)])
        #expect(transcript.combined == "")
    }
}

@Suite struct RunPrinterOptionsTests {
    @Test func optionsComeFromTheInvocationAndTheEnvironment() {
        var invocation = Invocation()
        invocation.outputMode = .grouped
        invocation.verbosity = .verbose
        invocation.color = .always
        let options = RunPrinter.Options.resolve(
            invocation, environment: OutputEnvironment(variables: ["GITHUB_ACTIONS": "true", "NO_COLOR": "1", "TMPDIR": "/var/tmp"]),
            isTerminal: false)
        #expect(options.outputMode == .grouped)
        #expect(options.verbosity == .verbose)
        #expect(options.style.enabled)
        #expect(options.githubActions)
        #expect(!options.isTerminal)
        #expect(options.temporaryDirectory == "/var/tmp")
        let auto = RunPrinter.Options.resolve(
            Invocation(), environment: OutputEnvironment(variables: ["GITHUB_ACTIONS": "false", "TMPDIR": ""]),
            isTerminal: false)
        #expect(!auto.githubActions)
        #expect(auto.temporaryDirectory == "/tmp")
        #expect(!auto.style.enabled)
    }
}
