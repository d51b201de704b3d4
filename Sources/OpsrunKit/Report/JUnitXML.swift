/// `--junit FILE` (SPEC §8): one test case per task, in the JUnit XML that CI systems read
/// (GitHub, GitLab, Jenkins, Buildkite).
///
/// - A task that failed is a `<failure>` whose message is the summary's reason and whose text is
///   the tail of its output (`OutputTail`).
/// - Cancelled, not run and up-to-date tasks are `<skipped>` with the reason: they did not run.
/// - A failure allowed by `allow_failure` passes, with the reason and its output tail in
///   `<system-out>`: the run counts it as a success.
/// - Groups (tasks with only `deps`) pass with time 0.
public enum JUnitXML {
    public static func render(_ run: FinishedRun) -> String {
        let report = run.report
        let counts = report.counts
        let tests = report.operations.count
        let failures = counts.failed
        let skipped = counts.cancelled + counts.notRun + counts.upToDate
        let time = FinishedRun.seconds(nanoseconds: run.clock.offset(of: run.endMonotonic))
        let suite = escaped(run.manifest)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"opsrun\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\""
            + " skipped=\"\(skipped)\" time=\"\(time)\">\n"
        out += "  <testsuite name=\"\(suite)\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\""
            + " skipped=\"\(skipped)\" time=\"\(time)\""
            + " timestamp=\"\(run.clock.timestamp(of: run.clock.startMonotonic))\">\n"
        for index in report.operations.indices {
            out += testCase(index, of: run, suite: suite)
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    private static func testCase(_ index: Int, of run: FinishedRun, suite: String) -> String {
        let record = run.report.operations[index]
        let time = run.span(index).map { FinishedRun.seconds(nanoseconds: $0.end - $0.start) } ?? "0.000"
        let open = "    <testcase name=\"\(escaped(record.name))\" classname=\"\(suite)\" time=\"\(time)\""
        let reason = escaped(run.reason(index) ?? "")
        switch record.state {
        case .finished(.succeeded):
            return open + "/>\n"
        case .finished(.failed):
            let tail = run.recorder.outputTail(of: index) ?? ""
            return open + ">\n      <failure message=\"\(reason)\" type=\"failed\">\(escaped(tail))</failure>\n"
                + "    </testcase>\n"
        case .finished(.failedAllowed):
            let tail = run.recorder.outputTail(of: index) ?? ""
            return open + ">\n      <system-out>\(escaped("failed (allowed): " + (run.reason(index) ?? "") + "\n" + tail))"
                + "</system-out>\n    </testcase>\n"
        case .finished(.upToDate), .cancelled:
            return open + ">\n      <skipped message=\"\(reason)\"/>\n    </testcase>\n"
        case .pending, .ready, .executing:
            preconditionFailure("operation \(index) did not end")
        }
    }

    /// Text for an XML attribute or element: the five special characters as entities, and what
    /// XML 1.0 cannot hold at all left out: terminal escapes (`ESC [ 31 m`, whole) and other
    /// control characters but tab, line feed and carriage return.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var escape = EscapeState.none
        for scalar in text.unicodeScalars {
            switch escape {
            case .none:
                if scalar == "\u{1B}" {
                    escape = .started
                    continue
                }
            case .started:
                // `ESC [` begins a control sequence; any other byte after ESC ends the escape.
                escape = scalar == "[" ? .controlSequence : .none
                continue
            case .controlSequence:
                // Parameters and intermediates until a final byte in @...~.
                if (0x40...0x7E).contains(scalar.value) { escape = .none }
                continue
            }
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                if value < 0x20 || value == 0xFFFE || value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private enum EscapeState { case none, started, controlSequence }
}
