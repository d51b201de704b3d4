import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// On an interrupt, each process group gets SIGTERM once, then SIGKILL after the grace period
/// (docs/manual/running.md). Issue 29: a service got SIGTERM twice on Ctrl-C (once for the
/// interrupt, once more when its last user ended), and a server that takes a second TERM as "quit
/// now" (redis) lost its graceful shutdown.
@Suite struct ServiceInterruptTests {
    /// Traps TERM, writes a line for every one it gets, and shuts down gracefully for `tenths` of
    /// a second (within the grace period): a second TERM would land in it. `sleep … || :`, as it
    /// runs under `sh -e` and its `sleep` is killed by the TERM sent to the group.
    static func stoppingGracefully(_ name: String, then afterwards: String, tenths: Int) -> String {
        [
            "trap 'echo TERM >> \(name)-terms; stopping=1' TERM",
            afterwards,
            "while [ -z \"$stopping\" ]; do sleep 0.05 || :; done",
            "i=0; while [ $i -lt \(tenths * 2) ]; do sleep 0.05 || :; i=$((i + 1)); done",
            "echo shut down >> \(name)-terms",
        ].joined(separator: "\n      ")
    }

    @Test func anInterruptGivesAServiceAndATaskOneSIGTERMEach() throws {
        let project = try TemporaryProject(
            """
            tasks:
              db:
                service: true
                run: |
                  \(Self.stoppingGracefully("db", then: "touch db-up", tenths: 20))
                ready: test -e db-up
              test:
                deps: [db]
                run: |
                  \(Self.stoppingGracefully("test", then: "touch test-running", tenths: 5))
            """)
        // The service's shutdown outlasts its dependent's: the stop its dependent's end asks
        // for comes while it shuts down.
        let running = try project.start("test")
        defer { running.stopIfRunning() }
        // The service is ready and its dependent runs.
        try #require(waitUntil("the test to run") { FileManager.default.fileExists(atPath: project.path("test-running")) })
        kill(running.pid, SIGINT)
        let result = running.wait()
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        let serviceGot = try String(contentsOfFile: project.path("db-terms"), encoding: .utf8)
        let taskGot = try String(contentsOfFile: project.path("test-terms"), encoding: .utf8)
        #expect(serviceGot == "TERM\nshut down\n")
        #expect(taskGot == "TERM\nshut down\n")
        #expect(result.stdout.contains("STOPPED  db"), "\(result.stdout)")
    }
}
