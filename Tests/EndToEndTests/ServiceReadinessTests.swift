import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `ready` probe that cannot run fails its service at once; one that never succeeds fails it at
/// `ready_timeout`, saying how the last probe ended (docs/manual/ci.md). Issue 29: `ready: curll
/// -fs http://...` (a typo, exit 127) waited the whole minute and said only "not ready after 1m".
@Suite struct ServiceReadinessTests {
    /// The probe proper runs once the service has written its pid (until then `test` fails, and
    /// the probe is tried again), so that the test can see the service is gone.
    static func manifest(ready probe: String) -> String {
        """
        tasks:
          db:
            service: true
            run: echo $$ > db.pid; echo booting up; exec sleep 60
            ready: test -e db.pid && \(probe)
            ready_timeout: 50s
          test:
            deps: [db]
            run: echo never
          report:
            deps: [test]
            run: echo never
        """
    }

    /// Not found (127: a typo, `nc` not installed) and found but not executable (126). The test
    /// waits less than `ready_timeout`: a probe retried until then fails it.
    @Test(arguments: [
        ("curll -fs http://127.0.0.1:9/", "ready probe cannot run (exit 127: db: 1: curll: not found)"),
        ("./probe.sh", "ready probe cannot run (exit 126: db: 1: ./probe.sh: Permission denied)"),
    ])
    func aReadyProbeThatCannotRunFailsTheServiceAtOnceWithItsOwnMessage(probe: String, failure: String) throws {
        let project = try TemporaryProject(Self.manifest(ready: probe), files: ["probe.sh": "#!/bin/sh\nexit 0\n"])
        let result = try OpsrunBinary.start(["report"], in: project.url).wait(seconds: 30)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✗ db \(failure)\n"), "\(result.stdout)")
        #expect(result.stdout.contains("""
            FAILED   db        \(failure)
              cancelled  test      prerequisite 'db' failed
              cancelled  report    prerequisite 'test' was cancelled (db)

            """), "\(result.stdout)")
        #expect(!result.stdout.contains("never"))
        let pid = try #require(ProcessProbe.pid(writtenTo: project.path("db.pid")))
        #expect(ProcessProbe.isGone(pid))
    }

    @Test func aServiceNotReadyInTimeSaysHowItsLastProbeEndedAndWhatItLastWrote() throws {
        let project = try TemporaryProject(
            """
            tasks:
              db:
                service: true
                run: echo $$ > db.pid; exec sleep 60
                ready: |
                  echo probing
                  echo "connect to 127.0.0.1 port 5432 failed: Connection refused" >&2
                  echo >&2
                  exit 2
                ready_timeout: 1s
              test:
                deps: [db]
                run: echo never
            """)
        let result = try project.run("test")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let failure = "not ready after 1s (last probe exit 2: connect to 127.0.0.1 port 5432 failed: Connection refused)"
        #expect(result.stdout.contains("FAILED   db        \(failure)\n"), "\(result.stdout)")
        #expect(result.stdout.contains("cancelled  test      prerequisite 'db' failed"))
        // The probe's output is not the service's.
        #expect(!result.stdout.contains("probing"), "\(result.stdout)")
    }
}
