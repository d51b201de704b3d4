import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/watch.md: under `--watch`, services stay up between runs unless their own definition changes,
/// and stop when the watch ends.
extension WatchTests {
    /// `db` writes its pid to `db.pids` each time it starts: one line per start. A service without
    /// a ready check is ready once spawned, so `use` may finish before `db`'s shell writes its line:
    /// the tests wait for the line itself.
    static func serviceManifest(sleep seconds: Int = 60, sources: Bool = true) -> String {
        """
        tasks:
          db:
            service: true
            run: echo $$ >> db.pids; exec sleep \(seconds)
          use:
            deps: [db]
            run: echo used >> use-log
        \(sources ? "    sources: [\"src/*.txt\"]\n" : "")
        """
    }

    func pids(_ project: TemporaryProject) -> [Int32] {
        lines(project, "db.pids").compactMap { Int32($0) }
    }

    @Test func aServiceStaysUpBetweenRunsAndStopsWhenTheWatchEnds() throws {
        let project = try TemporaryProject(Self.serviceManifest(), files: ["src/a.txt": "a\n"])
        let running = try project.start("-w", "use")
        defer { running.stopIfRunning() }
        waitForWatching(running, 1)
        #expect(lines(project, "use-log") == ["used"])

        for (run, text) in ["b\n", "c\n"].enumerated() {
            try text.write(toFile: project.path("src/a.txt"), atomically: true, encoding: .utf8)
            waitForLines(project, "use-log", run + 2)
            waitForWatching(running, run + 2)
        }
        #expect(lines(project, "use-log") == ["used", "used", "used"])
        waitForLines(project, "db.pids", 1)
        // Started once, and still up while watching.
        let started = pids(project)
        #expect(started.count == 1, "db started \(started.count) times:\n\(running.outputSoFar)")
        let pid = try #require(started.first)
        #expect(ProcessProbe.isAlive(pid))
        #expect(running.outputSoFar.contains("db kept running"), "\(running.outputSoFar)")
        #expect(!running.outputSoFar.contains("db stopped"), "\(running.outputSoFar)")

        kill(running.pid, SIGINT)
        #expect(running.wait().status == 130)
        #expect(ProcessProbe.isGone(pid))
    }

    @Test func aServiceWhoseDefinitionChangedIsStartedAgain() throws {
        let project = try TemporaryProject(Self.serviceManifest(sources: false))
        let running = try project.start("-w", "use")
        defer { running.stopIfRunning() }
        waitForWatching(running, 1)
        let first = try #require(ProcessProbe.pid(writtenTo: project.path("db.pids")))

        try Self.serviceManifest(sleep: 61, sources: false)
            .write(toFile: project.path("Tasksfile.yaml"), atomically: true, encoding: .utf8)
        waitForLines(project, "use-log", 2)
        waitForWatching(running, 2)
        waitForLines(project, "db.pids", 2)
        let started = pids(project)
        #expect(started.count == 2, "db started \(started.count) times:\n\(running.outputSoFar)")
        // The old one was stopped before the new one started.
        #expect(ProcessProbe.isGone(first))
        let second = try #require(started.last)
        #expect(ProcessProbe.isAlive(second))

        kill(running.pid, SIGTERM)
        #expect(running.wait().status == 143)
        #expect(ProcessProbe.isGone(second))
    }

    @Test func aKeptServiceThatExitedIsStartedAgainByTheNextRun() throws {
        let project = try TemporaryProject(Self.serviceManifest(), files: ["src/a.txt": "a\n"])
        let running = try project.start("-w", "use")
        defer { running.stopIfRunning() }
        waitForWatching(running, 1)
        let first = try #require(ProcessProbe.pid(writtenTo: project.path("db.pids")))
        kill(first, SIGKILL)
        #expect(ProcessProbe.isGone(first))

        try "b\n".write(toFile: project.path("src/a.txt"), atomically: true, encoding: .utf8)
        waitForLines(project, "use-log", 2)
        waitForWatching(running, 2)
        waitForLines(project, "db.pids", 2)
        #expect(pids(project).count == 2, "\(running.outputSoFar)")
        #expect(!running.outputSoFar.contains("✗"), "\(running.outputSoFar)")

        kill(running.pid, SIGINT)
        #expect(running.wait().status == 130)
        #expect(pids(project).allSatisfy { ProcessProbe.isGone($0) })
    }

    @Test func aKeptServiceWritingWhileNothingRunsIsNotBlocked() throws {
        // More than a pipe holds, written once the run has ended (after `go` appears).
        let manifest = """
            tasks:
              db:
                service: true
                run: echo $$ >> db.pids; until [ -e go ]; do sleep 0.02; done; head -c 3000000 /dev/zero; echo written > db-log; exec sleep 60
              use:
                deps: [db]
                run: echo used >> use-log

            """
        let project = try TemporaryProject(manifest)
        let running = try project.start("-w", "use")
        defer { running.stopIfRunning() }
        waitForWatching(running, 1)
        try "".write(toFile: project.path("go"), atomically: true, encoding: .utf8)
        waitForLines(project, "db-log", 1)
        #expect(lines(project, "db-log") == ["written"])

        kill(running.pid, SIGINT)
        #expect(running.wait().status == 130)
        #expect(pids(project).allSatisfy { ProcessProbe.isGone($0) })
    }
}

/// Issue 29: a service kept up between runs is started afresh when one of its prerequisites ran
/// again (a new port, a new config), and must be ready again before its dependents start
/// (docs/manual/watch.md). Before, it kept the old settings and was ready at once.
extension WatchTests {
    /// `db` serves the setting `config` copies from `src/setting.txt`; its probe checks that what
    /// it serves is the current setting. `use` reads every source, `config` only the setting.
    static let configuredServiceManifest = """
        tasks:
          config:
            run: cp src/setting.txt setting
            sources: [src/setting.txt]
            outputs: [setting]
          db:
            deps: [config]
            service: true
            run: echo $$ >> db.pids; cp setting serving; exec sleep 60
            ready: echo probed >> probes; cmp -s setting serving
          use:
            deps: [db]
            sources: ["src/*.txt"]
            run: cat serving >> use-log

        """

    @Test func aKeptServiceIsStartedAfreshWhenAPrerequisiteRanAgainAndOnlyThen() throws {
        let project = try TemporaryProject(
            Self.configuredServiceManifest, files: ["src/setting.txt": "a\n", "src/other.txt": "x\n"])
        let running = try project.start("-w", "use")
        defer { running.stopIfRunning() }
        waitForWatching(running, 1)
        #expect(lines(project, "use-log") == ["a"])

        // `config` is up to date: the service is kept, and ready at once.
        try "y\n".write(toFile: project.path("src/other.txt"), atomically: true, encoding: .utf8)
        waitForLines(project, "use-log", 2)
        waitForWatching(running, 2)
        #expect(pids(project).count == 1, "\(running.outputSoFar)")
        let probes = lines(project, "probes").count

        // `config` runs again: the service is stopped, started afresh and probed again before
        // `use` runs.
        try "b\n".write(toFile: project.path("src/setting.txt"), atomically: true, encoding: .utf8)
        waitForLines(project, "use-log", 3)
        waitForWatching(running, 3)
        #expect(lines(project, "use-log") == ["a", "a", "b"], "\(running.outputSoFar)")
        waitForLines(project, "db.pids", 2)
        let started = pids(project)
        #expect(started.count == 2, "db started \(started.count) times:\n\(running.outputSoFar)")
        #expect(lines(project, "probes").count > probes)
        let first = try #require(started.first)
        let second = try #require(started.last)
        #expect(ProcessProbe.isGone(first))
        #expect(ProcessProbe.isAlive(second))
        #expect(!running.outputSoFar.contains("✗"), "\(running.outputSoFar)")

        kill(running.pid, SIGINT)
        #expect(running.wait().status == 130)
        #expect(ProcessProbe.isGone(second))
    }
}
