import Testing

@testable import OpsrunKit
@testable import OpsrunEngine
@testable import OpsrunReport

@Suite struct SummaryPrinterTests {
    let plain = TerminalStyle(enabled: false)

    func record(
        _ name: String, _ state: OperationState, attempts: Int = 0, _ result: JobResult? = nil
    ) -> OperationRecord {
        OperationRecord(
            name: name, state: state, attempts: attempts,
            startNanoseconds: result?.startNanoseconds,
            endNanoseconds: result?.endNanoseconds, lastResult: result)
    }

    func render(
        _ records: [OperationRecord], specs: [OperationSpec]? = nil, signal: Int32? = nil,
        stoppedAfter: Int? = nil, limit: Int = 50
    ) -> String {
        let report = RunReport(
            operations: records, signal: signal, stoppedAfterFailure: stoppedAfter)
        return SummaryPrinter.render(
            report, specs: specs ?? records.map { task($0.name) }, style: plain, limit: limit)
    }

    @Test func theSpecExampleReadsAsTheSpecShowsIt() {
        let text = render(
            [
                record("compile", .finished(.failed), attempts: 1, result(.exited(2), 0, 1.3)),
                record("link", .cancelled(.prerequisiteFailed(prerequisite: 0))),
                record("package", .cancelled(.prerequisiteCancelled(prerequisite: 1, root: 0))),
                record("docs", .cancelled(.runStopped(after: 0))),
            ], stoppedAfter: 0)
        #expect(
            text == """
                0 succeeded, 1 failed, 2 cancelled, 1 not run
                FAILED   compile   exit 2 after 1.3s
                  cancelled  link      prerequisite 'compile' failed
                  cancelled  package   prerequisite 'link' was cancelled (compile)
                NOT RUN  docs      the run stopped after 'compile' failed (use -k to keep going)

                """)
    }

    @Test func aSuccessfulRunIsOneLine() {
        #expect(
            render([
                record("a", .finished(.succeeded), attempts: 1),
                record("all", .finished(.succeeded)),
            ]) == "2 succeeded\n")
    }

    /// A chain stays in line unless a sibling of its head follows: `bundle` (after `app`) was in
    /// line with `tests`, which then read as the next link of the chain, not as `app`'s sibling.
    @Test func aBranchingTreeMovesRightWhereItBranchesAndAChainWithASiblingAfterItToo() {
        let text = render([
            record("base", .finished(.failed), attempts: 1, result(.signaled(9), 0, 0.4)),
            record("lib", .cancelled(.prerequisiteFailed(prerequisite: 0))),
            record("app", .cancelled(.prerequisiteCancelled(prerequisite: 1, root: 0))),
            record("tests", .cancelled(.prerequisiteCancelled(prerequisite: 1, root: 0))),
            record("bundle", .cancelled(.prerequisiteCancelled(prerequisite: 2, root: 0))),
            record("tools", .cancelled(.prerequisiteFailed(prerequisite: 0))),
            record("other", .finished(.succeeded), attempts: 1),
        ])
        #expect(
            text == """
                1 succeeded, 1 failed, 5 cancelled
                FAILED   base      killed by SIGKILL after 0.4s
                  cancelled  lib       prerequisite 'base' failed
                    cancelled  app       prerequisite 'lib' was cancelled (base)
                      cancelled  bundle    prerequisite 'app' was cancelled (base)
                    cancelled  tests     prerequisite 'lib' was cancelled (base)
                  cancelled  tools     prerequisite 'base' failed

                """)
    }

    @Test func retriesTimeoutsSpawnFailuresAndAllowedFailuresSayWhatHappened() {
        let specs = [
            task("flaky", retries: 2), task("slow", timeoutMilliseconds: 10_000), task("nodir"),
            task("docs", allowFailure: true), task("long-named-task"),
        ]
        let text = render(
            [
                record("flaky", .finished(.failed), attempts: 3, result(.exited(1), 0, 0.7)),
                record(
                    "slow", .finished(.failed), attempts: 1,
                    result(.signaled(15), 0, 10.2, timedOut: true)),
                record(
                    "nodir", .finished(.failed), attempts: 1,
                    result(.exited(127), 0, 0, spawnFailure: "no such directory 'src'")),
                record("docs", .finished(.failedAllowed), attempts: 1, result(.exited(1), 0, 0.2)),
                record(
                    "long-named-task", .finished(.succeeded), attempts: 1,
                    result(.exited(0), 0, 125)),
            ], specs: specs)
        // The succeeded task's long name is not shown, so it does not widen the name column.
        #expect(
            text == """
                1 succeeded, 3 failed, 1 failed (allowed)
                WARNING  docs      exit 1 after 0.2s (allowed to fail)
                FAILED   flaky     failed after 3 attempts: exit 1
                FAILED   slow      timed out after 10s
                FAILED   nodir     could not start: no such directory 'src'

                """)
    }

    @Test func anInterruptListsTheTasksItCutShortAndCountsTheOthers() {
        let text = render(
            [
                record(
                    "compile", .cancelled(.interrupted(signal: 2)), attempts: 1,
                    result(.signaled(15), 0, 0.4)),
                record(
                    "test", .cancelled(.interrupted(signal: 2)), attempts: 2,
                    result(.signaled(15), 0, 0.4)),
                record("lint", .finished(.succeeded), attempts: 1, result(.exited(0), 0, 0.1)),
                record("link", .cancelled(.interrupted(signal: 2))),
                record("all", .cancelled(.interrupted(signal: 2))),
            ], signal: 2)
        #expect(
            text == """
                1 succeeded, 2 interrupted, 2 cancelled
                INTERRUPTED by SIGINT
                  interrupted  compile   interrupted by SIGINT
                  interrupted  test      interrupted by SIGINT
                  2 tasks had not started

                """)
    }

    @Test func longListsStopAtTheLimitWithACount() {
        var records = [record("root", .finished(.failed), attempts: 1, result(.exited(1), 0, 1))]
        records += (1...4).map {
            record("c\($0)", .cancelled(.prerequisiteFailed(prerequisite: 0)))
        }
        records += (1...3).map { record("n\($0)", .cancelled(.runStopped(after: 0))) }
        #expect(
            render(records, stoppedAfter: 0, limit: 2) == """
                0 succeeded, 1 failed, 4 cancelled, 3 not run
                FAILED   root      exit 1 after 1.0s
                  cancelled  c1        prerequisite 'root' failed
                  cancelled  c2        prerequisite 'root' failed
                  … and 2 more cancelled
                NOT RUN  n1        the run stopped after 'root' failed (use -k to keep going)
                NOT RUN  n2        the run stopped after 'root' failed (use -k to keep going)
                NOT RUN  … and 1 more

                """)
    }

    @Test func aFailureAtTheHeadOf100000ChainedTasksPrintsFiftyOfThemWithoutRecursion() {
        let count = 100_000
        var records = [record("c0", .finished(.failed), attempts: 1, result(.exited(1), 0, 1))]
        records += (1..<count).map { index in
            record(
                "c\(index)",
                .cancelled(
                    index == 1
                        ? .prerequisiteFailed(prerequisite: 0)
                        : .prerequisiteCancelled(prerequisite: index - 1, root: 0)))
        }
        let lines = render(records).split(separator: "\n")
        #expect(lines.count == 1 + 1 + 50 + 1)
        #expect(lines[2] == "  cancelled  c1        prerequisite 'c0' failed")
        #expect(lines[51] == "  cancelled  c50       prerequisite 'c49' was cancelled (c0)")
        #expect(lines[52] == "  … and 99949 more cancelled")
    }

    @Test func colourMarksFailuresRedAndWarningsYellow() {
        let text = SummaryPrinter.render(
            RunReport(
                operations: [
                    record("a", .finished(.failed), attempts: 1, result(.exited(2), 0, 1)),
                    record("b", .finished(.failedAllowed), attempts: 1, result(.exited(1), 0, 1)),
                ], signal: nil, stoppedAfterFailure: 0),
            specs: [task("a"), task("b")], style: TerminalStyle(enabled: true))
        let e = "\u{1B}["
        #expect(
            text == """
                0 succeeded, \(e)31m1 failed\(e)0m, \(e)33m1 failed (allowed)\(e)0m
                \(e)33mWARNING\(e)0m  b         exit 1 after 1.0s (allowed to fail)
                \(e)31mFAILED\(e)0m   a         exit 2 after 1.0s

                """)
    }
}

@Suite struct OutcomeWordsTests {
    @Test func durationsAreCompact() {
        let cases: [(Double, String)] = [
            (0, "0.0s"), (0.34, "0.3s"), (1.25, "1.3s"), (9.94, "9.9s"), (9.96, "10s"),
            (12.4, "12s"),
            (59.6, "1m00s"), (125, "2m05s"), (3599.4, "59m59s"), (3725, "1h02m"),
            (36_000, "10h00m"),
        ]
        for (seconds, text) in cases {
            #expect(DurationText.elapsed(nanoseconds: UInt64(seconds * 1e9)) == text, "\(seconds)")
        }
        #expect(DurationText.elapsed(from: 5, to: 3) == "0.0s")
    }

    @Test func limitsReadAsAManifestWritesThem() {
        let cases: [(Int, String)] = [
            (250, "250ms"), (1500, "1.5s"), (10_000, "10s"), (90_000, "1m30s"), (600_000, "10m"),
            (5_400_000, "1h30m"), (7_200_000, "2h"),
        ]
        for (milliseconds, text) in cases {
            #expect(DurationText.limit(milliseconds: milliseconds) == text)
        }
    }

    @Test func signalsHaveTheirNames() {
        #expect(
            [1, 2, 9, 11, 15, 31, 34].map { SignalName.of(Int32($0)) } == [
                "SIGHUP", "SIGINT", "SIGKILL", "SIGSEGV", "SIGTERM", "SIGSYS", "signal 34",
            ])
    }

    @Test func aTimeoutWithoutALimitSaysTheElapsedTime() {
        #expect(
            OutcomeText.attempt(
                result(.signaled(9), 0, 2.5, timedOut: true), timeoutMilliseconds: nil)
                == "timed out after 2.5s")
    }
}
