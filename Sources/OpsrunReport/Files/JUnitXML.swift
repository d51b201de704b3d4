/// `--junit FILE` (docs/manual/output-and-reports.md): one test case per task, in the JUnit XML that CI systems read
/// (GitHub, GitLab, Jenkins, Buildkite).
///
/// - A task that failed is a `<failure>` whose message is the summary's reason and whose text is
///   the tail of its output (`OutputTail`).
/// - A task that was running when a signal interrupted the run is an `<error>` (`interrupted by
///   SIGINT`) with the tail of its output: it ran, and did not pass.
/// - Cancelled, not run and up-to-date tasks are `<skipped>` with the reason: they did not run.
/// - A failure allowed by `allow_failure` passes, with the reason and its output tail in
///   `<system-out>`: the run counts it as a success.
/// - Groups (tasks with only `deps`) pass with time 0.
/// - Times are seconds to the millisecond; the suite's `timestamp` is UTC to the second, without a
///   zone, as the JUnit schema has it.

import OpsrunEngine

public enum JUnitXML {
    public static func render(_ run: FinishedRun) -> String {
        let report = run.report
        let counts = report.counts
        let tests = report.operations.count
        let failures = counts.failed
        let errors = counts.interrupted
        let skipped = counts.cancelled + counts.notRun + counts.upToDate
        let time = seconds(run.clock.milliseconds(from: run.clock.startMonotonic, to: run.endMonotonic))
        let suite = XMLText.attribute(run.manifest)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"opsrun\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\""
            + " skipped=\"\(skipped)\" time=\"\(time)\">\n"
        out += "  <testsuite name=\"\(suite)\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\""
            + " skipped=\"\(skipped)\" time=\"\(time)\""
            + " timestamp=\"\(run.clock.timestamp(of: run.clock.startMonotonic, precise: false))\">\n"
        for index in report.operations.indices {
            out += testCase(index, of: run, suite: suite)
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    private static func testCase(_ index: Int, of run: FinishedRun, suite: String) -> String {
        let record = run.report.operations[index]
        let time = run.span(index).map { seconds(run.clock.milliseconds(from: $0.start, to: $0.end)) } ?? "0.000"
        let open = "    <testcase name=\"\(XMLText.attribute(record.name))\" classname=\"\(suite)\" time=\"\(time)\""
        let reason = run.reason(index) ?? ""
        let tail = run.recorder.outputTail(of: index) ?? ""
        switch record.state {
        case .finished(.succeeded), .finished(.stopped):
            // A service passes: it was stopped, as it should be. Its life and any failed cleanup
            // are in <system-out>.
            var notes: [String] = []
            if record.state == .finished(.stopped) { notes.append("service: " + OutcomeText.service(record)) }
            if let failure = record.lastResult?.cleanupFailure { notes.append("warning: " + OutcomeText.cleanup(failure)) }
            guard !notes.isEmpty else { return open + "/>\n" }
            return open + ">\n      <system-out>" + XMLText.content(notes.joined(separator: "\n") + "\n")
                + "</system-out>\n    </testcase>\n"
        case .finished(.restored):
            return open + ">\n      <system-out>restored from the output cache</system-out>\n    </testcase>\n"
        case .finished(.failed):
            return open + ">\n      <failure message=\"\(XMLText.attribute(reason))\" type=\"failed\">"
                + XMLText.content(tail) + "</failure>\n    </testcase>\n"
        case .finished(.failedAllowed):
            return open + ">\n      <system-out>" + XMLText.content("failed (allowed): \(reason)\n" + tail)
                + "</system-out>\n    </testcase>\n"
        case .cancelled where run.wasInterrupted(index):
            return open + ">\n      <error message=\"\(XMLText.attribute(reason))\" type=\"interrupted\">"
                + XMLText.content(tail) + "</error>\n    </testcase>\n"
        case .finished(.upToDate), .cancelled:
            return open + ">\n      <skipped message=\"\(XMLText.attribute(reason))\"/>\n    </testcase>\n"
        case .pending, .ready, .executing:
            preconditionFailure("operation \(index) did not end")
        }
    }

    /// `0.042`, `12.300`: seconds with millisecond digits.
    static func seconds(_ milliseconds: Int) -> String {
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
