import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/ci.md, services: real processes on real loopback ports.
@Suite struct ServiceTests {
    /// Scripts the manifests below share: a free port picked at run time (so parallel runs never
    /// collide), a probe, and a client.
    static let scripts = [
        "free_port.py": """
            import socket
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            print(s.getsockname()[1])
            """,
        "probe.py": """
            import sys, urllib.request
            port = open("port").read().strip()
            urllib.request.urlopen("http://127.0.0.1:%s/" % port, timeout=1)
            """,
        "client.py": """
            import urllib.request
            port = open("port").read().strip()
            print("status", urllib.request.urlopen("http://127.0.0.1:%s/" % port, timeout=5).status)
            """,
    ]

    static let server = """
          port:
            run: python3 free_port.py > port
          server:
            deps: [port]
            service: true
            run: echo $$ > server.pid; exec python3 -m http.server --bind 127.0.0.1 "$(cat port)"
            ready: python3 probe.py
        """

    @Test func dependentsStartOnceTheServiceIsReadyAndItStopsAfterTheLastOfThem() throws {
        // `watcher` needs no service: it ends only once the server is gone, which proves the
        // server was stopped when `test` ended, not when the run did. `-j 2`: the ready server
        // holds no slot, so `test` and `watcher` run side by side.
        let project = try TemporaryProject(
            """
            tasks:
            \(Self.server)
              test:
                deps: [server]
                run: python3 client.py
              watcher:
                deps: [port]
                timeout: 60s
                run: |
                  until [ -s server.pid ]; do sleep 0.05; done
                  while kill -0 "$(cat server.pid)" 2>/dev/null; do sleep 0.05; done
                  echo server gone
              all:
                deps: [test, watcher]
            """, files: Self.scripts)
        let result = try project.run("-j", "2", "all")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("test    | status 200"))
        #expect(result.stdout.contains("watcher | server gone"))
        let ready = try #require(result.stdout.range(of: "● server ready"))
        let testStart = try #require(result.stdout.range(of: "▶ test"))
        #expect(ready.lowerBound < testStart.lowerBound)
        #expect(result.stdout.contains("○ server stopped after"))
        #expect(result.stdout.contains("3 succeeded, 1 service stopped"))
        #expect(result.stdout.contains("STOPPED  server"))
        let port = try #require(Int(String(contentsOfFile: project.path("port"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(!LoopbackPort.isListening(port))
    }

    @Test func aReadyServiceTakesNoSlotSoOneJobCannotDeadlock() throws {
        let project = try TemporaryProject(
            """
            tasks:
            \(Self.server)
              test:
                deps: [server]
                run: python3 client.py
            """, files: Self.scripts)
        let result = try project.run("-j", "1", "test")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("test   | status 200"))
    }

    @Test func aServiceThatExitsFailsItsRunningDependentsAndCancelsTheRest() throws {
        // The service exits 1 once `test` has started (the file `go`); `test` would run 30 s.
        let project = try TemporaryProject(
            """
            tasks:
              db:
                service: true
                run: until [ -e go ]; do sleep 0.02; done; echo db dies; exit 1
              test:
                deps: [db]
                run: touch go; sleep 30
              report:
                deps: [test]
                run: echo never
            """)
        let result = try project.run("report")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("FAILED   db        exited while needed (exit 1) after"))
        #expect(result.stdout.contains("FAILED   test      service 'db' exited (exit 1)"))
        #expect(result.stdout.contains("cancelled  report    prerequisite 'test' failed"))
        #expect(!result.stdout.contains("never"))
    }

    @Test func aServiceNotReadyInTimeFailsWithTheTailOfItsOutput() throws {
        let project = try TemporaryProject(
            """
            tasks:
              db:
                service: true
                run: echo $$ > db.pid; echo booting up; exec sleep 60
                ready: test -e never-there
                ready_timeout: 1s
              test:
                deps: [db]
                run: echo never
            """)
        let result = try project.run("test", "--output", "grouped")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("── db ── failed: not ready after 1s (last probe exit 1)\nbooting up\n"), "\(result.stdout)")
        #expect(result.stdout.contains("cancelled  test      prerequisite 'db' failed"))
        let pid = try #require(ProcessProbe.pid(writtenTo: project.path("db.pid")))
        #expect(ProcessProbe.isGone(pid))
    }

    @Test func underGitHubActionsAServicesOutputIsOneFoldedBlockWhenItStops() throws {
        let project = try TemporaryProject(
            """
            tasks:
              db:
                service: true
                run: echo db up; touch up; exec sleep 60
              test:
                deps: [db]
                run: until [ -e up ]; do sleep 0.02; done; echo testing
            """)
        let result = try project.run("test", "--output", "grouped", environment: ["GITHUB_ACTIONS": "true"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("::group::test (ok "))
        let block = try #require(result.stdout.range(of: "::group::db (stopped after "))
        #expect(result.stdout[block.upperBound...].contains(")\ndb up\n::endgroup::\n"))
    }

    @Test func anInterruptStopsTheServiceAndRunsCleanupsWithinTheGrace() throws {
        let project = try TemporaryProject(
            """
            tasks:
            \(Self.server)
              test:
                deps: [server]
                run: python3 client.py; touch started; exec sleep 60
                cleanup: echo collected > cleanup.log
            """, files: Self.scripts)
        let running = try project.start("test")
        try #require(waitUntil("the test to start") { FileManager.default.fileExists(atPath: project.path("started")) })
        kill(running.pid, SIGINT)
        let result = running.wait()
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("STOPPED  server"))
        #expect(try String(contentsOfFile: project.path("cleanup.log"), encoding: .utf8) == "collected\n")
        let pid = try #require(ProcessProbe.pid(writtenTo: project.path("server.pid")))
        #expect(ProcessProbe.isGone(pid))
        let port = try #require(Int(String(contentsOfFile: project.path("port"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(!LoopbackPort.isListening(port))
    }

    /// Issue 28, item 11: "Cleanups run even when a process had to be killed" (docs/manual/ci.md).
    @Test func aServiceThatIgnoresSIGTERMIsKilledAfterTheGraceAndItsCleanupStillRuns() throws {
        let project = try TemporaryProject(
            """
            tasks:
              stubborn:
                service: true
                run: trap '' TERM; echo $$ > stubborn.pid; while true; do sleep 0.05; done
                cleanup: echo collected > cleanup.log
              test:
                deps: [stubborn]
                run: until [ -s stubborn.pid ]; do sleep 0.05; done
            """)
        let result = try project.run("--grace", "300ms", "test")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("STOPPED  stubborn"), "\(result.stdout)")
        #expect((try? String(contentsOfFile: project.path("cleanup.log"), encoding: .utf8)) == "collected\n")
        let pid = try #require(ProcessProbe.pid(writtenTo: project.path("stubborn.pid")))
        #expect(ProcessProbe.isGone(pid))
    }

    @Test func dryRunAndGraphShowServicesAndWhenTheyStop() throws {
        let project = try TemporaryProject(
            """
            tasks:
              db:
                service: true
                run: exec sleep 60
                ready: pg_isready
              test:
                deps: [db]
                run: ./integration
                cleanup: ./collect-logs
              lint:
                run: echo lint
              all:
                deps: [test, lint]
            """)
        let plan = try project.run("-n", "all")
        #expect(plan.status == 0, "\(plan.stdout)\(plan.stderr)")
        #expect(plan.stdout == """
            wave 1:
              db (service, stopped after wave 2)
                $ exec sleep 60
                ready $ pg_isready
              lint
                $ echo lint
            wave 2:
              test
                $ ./integration
                cleanup $ ./collect-logs
            wave 3:
              all (group)

            """)
        let planJSON = try project.run("-n", "--format", "json", "all")
        #expect(planJSON.stdout.contains("""
                    "service": {
                      "ready": "pg_isready",
                      "ready_timeout_ms": 60000,
                      "stopped_after_wave": 2
                    }
            """))
        #expect(planJSON.stdout.contains("""
                    "cleanup": [
                      "./collect-logs"
                    ]
            """))
        let graphJSON = try project.run("--graph", "--format", "json", "all")
        #expect(graphJSON.stdout.contains("\"stopped_after\": [\n          \"test\"\n        ]"))
        let dot = try project.run("--graph", "--format", "dot", "all")
        #expect(dot.stdout.contains("  \"db\" [style=dashed, label=\"db (service)\"];"))
        let graph = try project.run("--graph", "all")
        #expect(graph.stdout == """
            all
            ├── test
            │   └── db (service, stopped once 'test' has ended)
            └── lint

            """)
    }

    @Test func reportsShowTheServiceReadyTimeAndItsStop() throws {
        let project = try TemporaryProject(
            """
            tasks:
            \(Self.server)
              test:
                deps: [server]
                run: python3 client.py
            """, files: Self.scripts)
        let result = try project.run("test", "--report", "run.json", "--junit", "junit.xml", "--trace", "trace.json")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try String(contentsOfFile: project.path("run.json"), encoding: .utf8)
        let json = try #require(JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        let tasks = try #require(json["tasks"] as? [[String: Any]])
        let server = try #require(tasks.first { $0["name"] as? String == "server" })
        #expect(server["state"] as? String == "stopped")
        #expect(server["service"] as? Bool == true)
        #expect(server["ready_ms"] is Int)
        #expect((json["counts"] as? [String: Any])?["stopped"] as? Int == 1)
        let junit = try String(contentsOfFile: project.path("junit.xml"), encoding: .utf8)
        #expect(junit.contains("<system-out>service: ready after"))
        #expect(junit.contains("failures=\"0\""))
        let trace = try String(contentsOfFile: project.path("trace.json"), encoding: .utf8)
        #expect(trace.contains("\"server ready\""))
    }

    /// A service writes nothing its dependents read: that it ran does not make them run again.
    @Test func aDependentWithSourcesStaysUpToDateBehindAService() throws {
        let project = try TemporaryProject(
            """
            tasks:
              db:
                service: true
                run: exec sleep 60
              gen:
                deps: [db]
                sources: [in.txt]
                outputs: [out.txt]
                run: cp in.txt out.txt
            """, files: ["in.txt": "hello\n"])
        let first = try project.run("gen")
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let second = try project.run("--explain", "gen")
        #expect(second.status == 0)
        // Nothing needs the service: it does not even start.
        #expect(second.stdout == "0 succeeded, 2 up to date\n", "\(second.stdout)")
        let plan = try project.run("-n", "gen")
        #expect(plan.stdout.contains("  db (service, not started: what needs it is up to date)\n"))
    }

    @Test func serviceKeysAreCheckedWithTheirPlaces() throws {
        let project = try TemporaryProject(
            """
            tasks:
              db:
                service: yes
                run: postgres
              web:
                run: serve
                ready: curl -f localhost
              cache:
                service: true
                run: redis-server
                outputs: [dump.rdb]
                retries: 2
                ready_timout: 5s
              api:
                service: true
                run: api
                ready_timeout: soon
            """)
        let result = try project.run("-n")
        #expect(result.status == 2)
        #expect(result.stderr.contains("Tasksfile.yaml:3:14: error: 'service' of task 'db' must be true or false, not 'yes'"))
        #expect(result.stderr.contains("Tasksfile.yaml:7:12: error: 'ready' of task 'web' needs 'service: true': only a service waits to be ready"))
        #expect(result.stderr.contains("Tasksfile.yaml:9:14: error: service 'cache' cannot have 'outputs': a service runs every time its dependents do, never up to date"))
        #expect(result.stderr.contains("Tasksfile.yaml:9:14: error: service 'cache' cannot have 'retries': a service that fails fails the tasks that need it"))
        #expect(result.stderr.contains("Tasksfile.yaml:13:5: error: unknown key 'ready_timout' in task 'cache'; did you mean 'ready_timeout'?"))
        #expect(result.stderr.contains("Tasksfile.yaml:17:20: error: 'ready_timeout' of task 'api' must be a duration like 30s, 2m or 1m30s, not 'soon'"))
    }
}

/// Whether something accepts connections on a loopback port.
enum LoopbackPort {
    static func isListening(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return connected == 0
    }
}
