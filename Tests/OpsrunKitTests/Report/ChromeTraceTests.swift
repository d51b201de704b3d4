import Foundation
import Testing

@testable import OpsrunKit
@testable import OpsrunReport

/// `--trace FILE` (docs/manual/output-and-reports.md): Chrome trace-event JSON, one slice per attempt on a lane per slot.
@Suite struct ChromeTraceTests {
    func slices(_ run: FinishedRun) throws -> [[String: Any]] {
        let document = try #require(
            JSONSerialization.jsonObject(with: Data(ChromeTrace.render(run).utf8)) as? [String: Any])
        let events = try #require(document["traceEvents"] as? [[String: Any]])
        return events.filter { $0["ph"] as? String == "X" }
    }

    @Test func overlappingTasksGetTheirOwnLanesAndALaneIsReusedOnceFree() throws {
        // a 0-1 s and b 0.5-2 s overlap; c starts at 1 s, when a's lane is free again.
        let run = finishedRun(
            [task("a"), task("b"), task("c"), task("group", [])],
            [
                record("a", .finished(.succeeded), attempts: 1, result(.exited(0), 0, 1)),
                record("b", .finished(.succeeded), attempts: 1, result(.exited(0), 0.5, 2)),
                record("c", .finished(.failed), attempts: 1, result(.exited(3), 1, 1.5)),
                record("group", .finished(.succeeded), attempts: 1),
            ],
            events: [
                .finished(index: 0, .succeeded, result: result(.exited(0), 0, 1)),
                .finished(index: 1, .succeeded, result: result(.exited(0), 0.5, 2)),
                .finished(index: 2, .failed, result: result(.exited(3), 1, 1.5)),
                .finished(index: 3, .succeeded, result: nil),
            ])
        let byName = Dictionary(uniqueKeysWithValues: try slices(run).map { ($0["name"] as! String, $0) })
        #expect(byName.keys.sorted() == ["a", "b", "c"])
        #expect(byName["a"]?["tid"] as? Int == 1)
        #expect(byName["b"]?["tid"] as? Int == 2)
        #expect(byName["c"]?["tid"] as? Int == 1)
        #expect(byName["b"]?["ts"] as? Int == 500_000)
        #expect(byName["b"]?["dur"] as? Int == 1_500_000)
        let args = try #require(byName["c"]?["args"] as? [String: Any])
        #expect(args["result"] as? String == "exit 3")
        #expect(args["attempt"] as? Int == 1)
    }

    @Test func everyAttemptOfARetriedTaskIsASliceAndAnInterruptedOneToo() throws {
        let run = finishedRun(
            [task("flaky", retries: 1), task("serve")],
            [
                record("flaky", .finished(.succeeded), attempts: 2, result(.exited(0), 1, 2), firstStart: 0),
                record("serve", .cancelled(.interrupted(signal: 2)), attempts: 1, result(.signaled(15), 0, 2)),
            ],
            events: [
                .retrying(index: 0, nextAttempt: 2, previous: result(.exited(1), 0, 1)),
                .finished(index: 0, .succeeded, result: result(.exited(0), 1, 2)),
            ], signal: 2)
        let all = try slices(run)
        let flaky = all.filter { $0["name"] as? String == "flaky" }
        #expect(flaky.compactMap { ($0["args"] as? [String: Any])?["attempt"] as? Int } == [1, 2])
        let serve = try #require(all.first { $0["name"] as? String == "serve" })
        #expect((serve["args"] as? [String: Any])?["result"] as? String == "killed by SIGTERM")
        // Three slices, at most two at once: two lanes.
        #expect(Set(all.compactMap { $0["tid"] as? Int }) == [1, 2])
    }
}
