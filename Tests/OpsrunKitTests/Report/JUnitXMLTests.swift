import Testing

@testable import OpsrunKit
@testable import OpsrunReport

/// `--junit FILE` (docs/manual/output-and-reports.md): one test case per task; failed tasks carry the tail of their output,
/// cancelled ones are skipped with the reason.
@Suite struct JUnitXMLTests {
    @Test func failuresCarryTheirOutputAndCancelledTasksAreSkippedWithTheReason() {
        let run = finishedRun(
            [task("compile"), task("link"), task("fmt")],
            [
                record("compile", .finished(.failed), attempts: 1, result(.exited(2), 0, 1.3)),
                record("link", .cancelled(.prerequisiteFailed(prerequisite: 0))),
                record("fmt", .finished(.succeeded), attempts: 1, result(.exited(0), 0, 0.25)),
            ],
            events: [
                .operationStarted(index: 0, attempt: 1), out(0, "compiling...\n"),
                err(0, "main.c:3: error: expected ';'\n"),
                .finished(index: 0, .failed, result: result(.exited(2), 0, 1.3)),
            ], endSeconds: 1.5)
        #expect(
            JUnitXML.render(run) == """
                <?xml version="1.0" encoding="UTF-8"?>
                <testsuites name="opsrun" tests="3" failures="1" errors="0" skipped="1" time="1.500">
                  <testsuite name="Tasksfile.yaml" tests="3" failures="1" errors="0" skipped="1" time="1.500" timestamp="2026-11-23T10:00:00">
                    <testcase name="compile" classname="Tasksfile.yaml" time="1.300">
                      <failure message="exit 2 after 1.3s" type="failed">compiling...
                main.c:3: error: expected &apos;;&apos;
                </failure>
                    </testcase>
                    <testcase name="link" classname="Tasksfile.yaml" time="0.000">
                      <skipped message="prerequisite &apos;compile&apos; failed"/>
                    </testcase>
                    <testcase name="fmt" classname="Tasksfile.yaml" time="0.250"/>
                  </testsuite>
                </testsuites>

                """)
    }

    @Test func markupInNamesAndOutputIsEscapedAndTerminalEscapesAreLeftOut() {
        #expect(XMLText.content("a<b>&\"c\"") == "a&lt;b&gt;&amp;&quot;c&quot;")
        #expect(XMLText.content("\u{1B}[1;31merror\u{1B}[0m: bad\u{07}") == "error: bad")
        // A terminal title and a hyperlink: `ESC ] … BEL` and `ESC ] … ESC \`.
        #expect(XMLText.content("\u{1B}]0;title\u{07}see \u{1B}]8;;http://x\u{1B}\\docs\u{1B}]8;;\u{1B}\\.") == "see docs.")
        #expect(XMLText.content("tab\tand\r\nnewline") == "tab\tand\r\nnewline")
        // `tput sgr0` on xterm: ESC ( B then ESC [ m.
        #expect(XMLText.content("bold\u{1B}(B\u{1B}[m plain") == "bold plain")
        #expect(XMLText.content("\u{1B}7saved\u{1B}8 \u{1B}Pdevice string\u{1B}\\done") == "saved done")
    }

    @Test func aBrokenTerminalEscapeNeverSwallowsALineOrText() {
        #expect(XMLText.content("cut \u{1B}[\nError: disk full") == "cut \nError: disk full")
        #expect(XMLText.content("title \u{1B}]0;half\nnext line") == "title \nnext line")
        #expect(XMLText.content("x\u{1B}\u{1B}[31my") == "xy")
        #expect(XMLText.content("\u{1B}é") == "é")
        // In an attribute, a reader would turn line breaks and tabs into spaces.
        #expect(XMLText.attribute("two\nlines\tand a tab") == "two&#10;lines&#9;and a tab")
    }

    @Test func anAllowedFailurePassesWithItsReasonAndOutputInSystemOut() {
        let run = finishedRun(
            [task("flaky", allowFailure: true)],
            [record("flaky", .finished(.failedAllowed), attempts: 1, result(.exited(1), 0, 0.5))],
            events: [
                .operationStarted(index: 0, attempt: 1), out(0, "oops\n"),
                .finished(index: 0, .failedAllowed, result: result(.exited(1), 0, 0.5)),
            ])
        let xml = JUnitXML.render(run)
        #expect(xml.contains("failures=\"0\""))
        #expect(xml.contains("<system-out>failed (allowed): exit 1 after 0.5s\noops\n</system-out>"))
        #expect(!xml.contains("<failure"))
    }

    @Test func aTaskAnInterruptCutShortIsAnErrorWithItsOutputAndOneThatNeverStartedIsSkipped() {
        let run = finishedRun(
            [task("serve"), task("test")],
            [
                record("serve", .cancelled(.interrupted(signal: 2)), attempts: 1, result(.signaled(15), 0, 1)),
                record("test", .cancelled(.interrupted(signal: 2))),
            ],
            events: [
                .operationStarted(index: 0, attempt: 1), out(0, "listening\n"),
                .cancelled(index: 0, .interrupted(signal: 2)), .cancelled(index: 1, .interrupted(signal: 2)),
            ], signal: 2)
        let xml = JUnitXML.render(run)
        #expect(xml.contains("tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"1\""))
        #expect(xml.contains("""
                <testcase name="serve" classname="Tasksfile.yaml" time="1.000">
                  <error message="interrupted by SIGINT" type="interrupted">listening
            </error>
                </testcase>
                <testcase name="test" classname="Tasksfile.yaml" time="0.000">
                  <skipped message="interrupted by SIGINT"/>
                </testcase>
            """), "\(xml)")
    }

    @Test func aCancelledTasksOutputIsNotKept() {
        let run = finishedRun(
            [task("compile"), task("lint")],
            [
                record("compile", .finished(.failed), attempts: 1, result(.exited(1), 0, 1)),
                record("lint", .cancelled(.runStopped(after: 0))),
            ],
            events: [
                .operationStarted(index: 0, attempt: 1), .finished(index: 0, .failed, result: result(.exited(1), 0, 1)),
                .cancelled(index: 1, .runStopped(after: 0)),
            ])
        let xml = JUnitXML.render(run)
        #expect(xml.contains("<skipped message=\"the run stopped after &apos;compile&apos; failed (use -k to keep going)\"/>"), "\(xml)")
    }

    @Test func upToDateTasksAreSkippedAsUpToDate() {
        let run = finishedRun([task("build")], [record("build", .finished(.upToDate))])
        #expect(JUnitXML.render(run).contains("<skipped message=\"up to date\"/>"))
    }

    @Test func onlyTheLastAttemptsOutputIsShownForARetriedFailure() {
        let run = finishedRun(
            [task("flaky", retries: 1)],
            [record("flaky", .finished(.failed), attempts: 2, result(.exited(1), 1, 2))],
            events: [
                .operationStarted(index: 0, attempt: 1), out(0, "first try\n"),
                .retrying(index: 0, nextAttempt: 2, previous: result(.exited(1), 0, 1)),
                .operationStarted(index: 0, attempt: 2), out(0, "second try\n"),
                .finished(index: 0, .failed, result: result(.exited(1), 1, 2)),
            ])
        let xml = JUnitXML.render(run)
        #expect(xml.contains("message=\"failed after 2 attempts: exit 1\""))
        #expect(xml.contains(">second try\n</failure>"))
        #expect(!xml.contains("first try"))
    }
}
