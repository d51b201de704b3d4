import Foundation
import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunReport

/// `--report FILE` (docs/manual/output-and-reports.md): each task's state, exit status or signal, start, end, duration,
/// attempts, and for a cancelled task the reason and the failed task that caused it.
@Suite struct RunRecordJSONTests {
    let specs = [task("compile"), task("link"), task("docs"), task("lint"), task("all", [])]

    func sampleRun() -> FinishedRun {
        finishedRun(
            specs,
            [
                record("compile", .finished(.failed), attempts: 1, result(.exited(2), 0.25, 1.5)),
                record("link", .cancelled(.prerequisiteFailed(prerequisite: 0))),
                record("docs", .cancelled(.runStopped(after: 0))),
                record("lint", .finished(.succeeded), attempts: 2, result(.exited(0), 1, 1.75), firstStart: 0.5),
                record("all", .cancelled(.prerequisiteCancelled(prerequisite: 1, root: 0))),
            ], stoppedAfter: 0)
    }

    func taskRecord(in run: FinishedRun, named name: String) throws -> [String: Any] {
        let document = try #require(
            JSONSerialization.jsonObject(with: Data(RunRecordJSON.render(run).utf8)) as? [String: Any])
        let tasks = try #require(document["tasks"] as? [[String: Any]])
        return try #require(tasks.first { $0["name"] as? String == name })
    }

    /// The counts are the summary's: `all`, a group, is listed among the tasks but in no count.
    @Test func theRunHeaderSaysWhenHowLongAndHowItEnded() throws {
        let text = RunRecordJSON.render(sampleRun())
        #expect(text.hasPrefix("""
            {
              "version": 1,
              "opsrun": "\(OpsrunVersion.current)",
              "manifest": "Tasksfile.yaml",
              "start": "2026-11-23T10:00:00.000Z",
              "end": "2026-11-23T10:00:02.000Z",
              "duration_ms": 2000,
              "exit_code": 1,
              "signal": null,
              "stopped_after": "compile",
              "counts": {
                "succeeded": 1,
                "failed": 1,
                "failed_allowed": 0,
                "cancelled": 1,
                "not_run": 1,
                "up_to_date": 0,
                "stopped": 0,
                "restored": 0,
                "interrupted": 0
              },
            """))
    }

    @Test func aFailedTaskHasItsExitStatusTimesAndReason() throws {
        let text = RunRecordJSON.render(sampleRun())
        #expect(text.contains("""
                {
                  "name": "compile",
                  "state": "failed",
                  "exit_status": 2,
                  "signal": null,
                  "timed_out": false,
                  "start": "2026-11-23T10:00:00.250Z",
                  "end": "2026-11-23T10:00:01.500Z",
                  "duration_ms": 1250,
                  "attempts": 1,
                  "reason": "exit 2 after 1.3s",
                  "caused_by": null,
                  "service": false,
                  "ready": null,
                  "ready_ms": null,
                  "cleanup_failure": null
                }
            """))
    }

    @Test func aCancelledTaskNamesTheFailedTaskThatCausedItAndHasNoTimes() throws {
        let run = sampleRun()
        let link = try taskRecord(in: run, named: "link")
        #expect(link["state"] as? String == "cancelled")
        #expect(link["reason"] as? String == "prerequisite 'compile' failed")
        #expect(link["caused_by"] as? String == "compile")
        #expect(link["start"] is NSNull && link["duration_ms"] is NSNull && link["exit_status"] is NSNull)
        #expect(link["attempts"] as? Int == 0)
        let all = try taskRecord(in: run, named: "all")
        #expect(all["reason"] as? String == "prerequisite 'link' was cancelled (compile)")
        #expect(all["caused_by"] as? String == "compile")
        let docs = try taskRecord(in: run, named: "docs")
        #expect(docs["state"] as? String == "not_run")
        #expect(docs["caused_by"] as? String == "compile")
    }

    @Test func aRetriedTaskSpansFromItsFirstAttemptToItsLast() throws {
        let lint = try taskRecord(in: sampleRun(), named: "lint")
        #expect(lint["state"] as? String == "succeeded")
        #expect(lint["attempts"] as? Int == 2)
        #expect(lint["start"] as? String == "2026-11-23T10:00:00.500Z")
        #expect(lint["duration_ms"] as? Int == 1250)
        #expect(lint["reason"] is NSNull)
    }

    @Test func anInterruptedRunNamesItsSignalAndTheTasksItCutShort() throws {
        let run = finishedRun(
            [task("serve")],
            [record("serve", .cancelled(.interrupted(signal: 2)), attempts: 1, result(.signaled(15), 0, 1))],
            signal: 2)
        let document = try #require(
            JSONSerialization.jsonObject(with: Data(RunRecordJSON.render(run).utf8)) as? [String: Any])
        #expect(document["exit_code"] as? Int == 130)
        #expect(document["signal"] as? String == "SIGINT")
        let serve = try taskRecord(in: run, named: "serve")
        #expect(serve["state"] as? String == "interrupted")
        #expect(serve["signal"] as? String == "SIGTERM")
        #expect(serve["exit_status"] is NSNull)
        #expect(serve["reason"] as? String == "interrupted by SIGINT")
        #expect(serve["caused_by"] is NSNull)
    }

    @Test func aTimeoutIsMarkedAndWordedWithTheLimit() throws {
        let run = finishedRun(
            [task("slow", timeoutMilliseconds: 500)],
            [record("slow", .finished(.failed), attempts: 1, result(.signaled(15), 0, 0.6, timedOut: true))])
        let slow = try taskRecord(in: run, named: "slow")
        #expect(slow["timed_out"] as? Bool == true)
        #expect(slow["reason"] as? String == "timed out after 500ms")
    }
}
