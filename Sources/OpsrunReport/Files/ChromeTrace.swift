/// `--trace FILE` (docs/manual/output-and-reports.md): the run as Chrome trace-event JSON, for Perfetto (ui.perfetto.dev) or
/// `chrome://tracing`.
///
/// One complete event (`"ph": "X"`) per attempt. Attempts are laid on lanes (`slot 1` …), each on
/// the lowest lane free at its start: at most as many lanes as tasks ran at once (so at most `-j`),
/// and two slices never overlap on one lane. A retry may land on another lane than its first try.
/// Times are microseconds from the run's start. Tasks that did not run (up to date, cancelled,
/// groups) have no slice; the report and the summary list them.

import OpsrunEngine

public enum ChromeTrace {
    public static func render(_ run: FinishedRun) -> String {
        struct Slice {
            var index: Int
            var attempt: RunRecorder.Attempt
            var start: UInt64
            var end: UInt64
        }
        var slices: [Slice] = []
        for index in run.report.operations.indices {
            for attempt in run.recorder.attempts(of: index, in: run.report) {
                let start = run.clock.offset(of: attempt.result.startNanoseconds) / 1000
                let end = max(start, run.clock.offset(of: attempt.result.endNanoseconds) / 1000)
                slices.append(Slice(index: index, attempt: attempt, start: start, end: end))
            }
        }
        slices.sort { ($0.start, $0.index, $0.attempt.number) < ($1.start, $1.index, $1.attempt.number) }
        // Greedy by start time: the lowest lane whose last slice has ended.
        var laneEnds: [UInt64] = []
        var events: [OrderedJSON] = [
            metadata("process_name", thread: 0, name: "opsrun " + run.manifest)
        ]
        var taskEvents: [OrderedJSON] = []
        for slice in slices {
            let lane = laneEnds.firstIndex { $0 <= slice.start } ?? laneEnds.count
            if lane == laneEnds.count { laneEnds.append(slice.end) } else { laneEnds[lane] = slice.end }
            let timeout = run.specs[slice.index].job.timeoutMilliseconds
            let result = slice.attempt.result
            taskEvents.append(.object([
                ("name", .string(run.report.operations[slice.index].name)),
                ("cat", .string("task")),
                ("ph", .string("X")),
                ("ts", .int(Int(slice.start))),
                ("dur", .int(Int(slice.end - slice.start))),
                ("pid", .int(1)),
                ("tid", .int(lane + 1)),
                ("args", .object([
                    ("attempt", .int(slice.attempt.number)),
                    ("result", .string(
                        run.report.operations[slice.index].state == .finished(.stopped)
                            ? "stopped"
                            : result.succeeded
                            ? "succeeded"
                            : OutcomeText.attempt(result, timeoutMilliseconds: timeout, withDuration: false))),
                ])),
            ]))
        }
        // A service's slice runs until it was stopped; the moment it became ready is a mark on it.
        for index in run.report.operations.indices {
            guard let ready = run.report.operations[index].readyNanoseconds else { continue }
            taskEvents.append(.object([
                ("name", .string(run.report.operations[index].name + " ready")),
                ("cat", .string("service")),
                ("ph", .string("i")),
                ("s", .string("p")),
                ("ts", .int(Int(run.clock.offset(of: ready) / 1000))),
                ("pid", .int(1)),
                ("tid", .int(0)),
            ]))
        }
        for lane in laneEnds.indices {
            events.append(metadata("thread_name", thread: lane + 1, name: "slot \(lane + 1)"))
        }
        return OrderedJSON.object([
            ("traceEvents", .array(events + taskEvents)),
            ("displayTimeUnit", .string("ms")),
        ]).rendered
    }

    private static func metadata(_ kind: String, thread: Int, name: String) -> OrderedJSON {
        .object([
            ("name", .string(kind)),
            ("ph", .string("M")),
            ("pid", .int(1)),
            ("tid", .int(thread)),
            ("args", .object([("name", .string(name))])),
        ])
    }
}
