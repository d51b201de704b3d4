import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/running.md through the real binary and real processes: order, bounds, environment, failures.
@Suite struct RunningTests {
    @Test func aClosedStandardOutputEndsNoRunEarly() throws {
        // `opsrun | head -1`: once head has gone, writes fail with EPIPE; the run goes on, every
        // task runs, and the exit status is the run's, not death by SIGPIPE.
        let project = try TemporaryProject("""
            default: all
            tasks:
              first: { run: 'echo one; echo two' }
              second: { deps: [first], run: 'echo three; touch done' }
              all: { deps: [second] }
            """)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        close(ends[0])
        let running = try OpsrunBinary.start(
            [], in: project.url, standardOutput: FileHandle(fileDescriptor: ends[1], closeOnDealloc: true))
        running.wait()
        #expect(running.process.terminationReason == .exit)
        #expect(running.process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: project.path("done")))
    }

    @Test func helloRunsItsDefaultTaskWithOpsrunTaskSet() throws {
        let result = try OpsrunBinary.run([], in: OpsrunBinary.examples.appendingPathComponent("hello"))
        #expect(result.status == 0)
        #expect(result.stdout.contains("hello from hello"))
    }

    @Test func diamondRunsItsBaseOnceAndBeforeBothSides() throws {
        let project = try TemporaryProject("""
            default: top
            tasks:
              base: echo base >> log
              left: { deps: [base], run: echo left >> log }
              right: { deps: [base], run: echo right >> log }
              top: { deps: [left, right], run: echo top >> log }
            """)
        let result = try project.run("-j", "4")
        #expect(result.status == 0)
        let log = try String(contentsOfFile: project.path("log"), encoding: .utf8).split(separator: "\n")
        #expect(log.count == 4)
        #expect(log.first == "base")
        #expect(log.last == "top")
        #expect(Set(log[1...2]) == ["left", "right"])
    }

    @Test func jobsBoundIsNeverExceededAndIsReached() throws {
        // Each task waits at the gate between its start and its end; the gate opens once two
        // have started, so the bound is reached whatever the machine's load.
        let gate = try Gate()
        var manifest = "default: all\ntasks:\n"
        for i in 0..<6 { manifest += "  t\(i): echo start >> log; \(gate.wait); echo end >> log\n" }
        manifest += "  all: { deps: [t0, t1, t2, t3, t4, t5] }\n"
        let project = try TemporaryProject(manifest)
        // Joined, as make users type it (`-j 2` is used by the other tests).
        let running = try project.start("-j2")
        waitUntil("two tasks to start") { Self.lines(project.path("log")).count >= 2 }
        gate.release(6)
        let result = running.wait()
        #expect(result.status == 0)
        let log = Self.lines(project.path("log"))
        var concurrent = 0
        var most = 0
        for line in log {
            concurrent += line == "start" ? 1 : -1
            most = max(most, concurrent)
        }
        #expect(log.count == 12)
        #expect(most == 2)
    }

    /// The lines of a log the tasks append to; none before it exists.
    static func lines(_ path: String) -> [Substring] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
    }

    @Test func fortyCommandsAtOnceRunUnderASoftLimitOfSixtyFourDescriptors() throws {
        // Each running command takes five descriptors; opsrun raises its soft limit to the hard
        // one when it runs out, and gives every command the limit it was started with. All 40
        // run at once: each waits at the gate, opened once all have started.
        let gate = try Gate()
        var manifest = "default: all\ntasks:\n"
        for i in 0..<40 { manifest += "  t\(i): echo \(i) >> started; \(gate.wait)\n" }
        manifest += "  all: { deps: [\((0..<40).map { "t\($0)" }.joined(separator: ", "))], run: ulimit -n }\n"
        let project = try TemporaryProject(manifest)
        let running = try OpsrunBinary.start(
            ["-j", "40"], in: project.url, launcher: ["/bin/sh", "-c", "ulimit -Sn 64 && exec \"$0\" \"$@\""])
        waitUntil("40 tasks to start") { Self.lines(project.path("started")).count == 40 }
        gate.release(40)
        let result = running.wait()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("41 succeeded"))
        #expect(result.stdout.contains("all | 64"))
    }

    @Test func namedQueueBoundsItsOwnTasks() throws {
        // Each task waits at the gate between its start and its end, and the gate lets them
        // through one at a time: a task started alongside another shows as two starts in a row.
        let gate = try Gate()
        var manifest = "default: all\nqueues:\n  db: { max: 1 }\ntasks:\n"
        for i in 0..<3 { manifest += "  q\(i): { queue: db, run: echo start >> log; \(gate.wait); echo end >> log }\n" }
        manifest += "  all: { deps: [q0, q1, q2] }\n"
        let project = try TemporaryProject(manifest)
        let running = try project.start("-j", "3")
        for started in 1...3 {
            waitUntil("task \(started) to start") { Self.lines(project.path("log")).filter { $0 == "start" }.count >= started }
            gate.release()
        }
        let result = running.wait()
        #expect(result.status == 0)
        #expect(Self.lines(project.path("log")) == ["start", "end", "start", "end", "start", "end"])
    }

    @Test func environmentIsLayeredAsTheSpecSays() throws {
        let project = try TemporaryProject("""
            dotenv: [.env, missing.env]
            env:
              FROM_DOTENV_OVERRIDDEN: manifest
              GREETING: "hello ${WHO}"
              PRICE: "$$5"
            tasks:
              show:
                env: { TASK_ONLY: task, WHO: task-who }
                dir: sub
                run: echo "$FROM_DOTENV|$FROM_DOTENV_OVERRIDDEN|$GREETING|$PRICE|$TASK_ONLY|$WHO|$OPSRUN_TASK|$(basename "$PWD")" > "$OUT"
            """, files: [".env": "FROM_DOTENV=dotenv\nFROM_DOTENV_OVERRIDDEN=dotenv\nWHO=world\n", "sub/.keep": ""])
        let out = project.path("out.txt")
        let result = try project.run("show", "WHO=cli", "OUT=\(out)")
        #expect(result.status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "dotenv|manifest|hello cli|$5|task|cli|show|sub\n")
    }

    @Test func commandsSeeDevNullAsStandardInput() throws {
        let project = try TemporaryProject("tasks:\n  read: cat > got.txt\n")
        let result = try project.run("read")
        #expect(result.status == 0)
        #expect(try String(contentsOfFile: project.path("got.txt"), encoding: .utf8) == "")
    }

    @Test func firstFailingCommandEndsTheTask() throws {
        let project = try TemporaryProject("""
            tasks:
              t:
                run: [touch one, "false", touch two]
            """)
        let result = try project.run("t")
        #expect(result.status == 1)
        #expect(FileManager.default.fileExists(atPath: project.path("one")))
        #expect(!FileManager.default.fileExists(atPath: project.path("two")))
    }

    @Test func backgroundQualityOfServiceRunsAtNiceTen() throws {
        let project = try TemporaryProject("""
            tasks:
              low: { qos: background, run: sh -c 'nice > nice.txt' }
              normal: { run: nice > normal.txt }
            """)
        #expect(try project.run("low", "normal").status == 0)
        #expect(try String(contentsOfFile: project.path("nice.txt"), encoding: .utf8) == "10\n")
        #expect(try String(contentsOfFile: project.path("normal.txt"), encoding: .utf8) == "0\n")
    }

    @Test func retriesRunAFailingTaskAgain() throws {
        let project = try TemporaryProject("""
            tasks:
              flaky:
                retries: 2
                run: echo try >> tries; test $(wc -l < tries) -ge 2
            """)
        let result = try project.run("flaky")
        #expect(result.status == 0)
        #expect(try String(contentsOfFile: project.path("tries"), encoding: .utf8) == "try\ntry\n")
    }

    @Test func allowedFailureLetsDependentsRunAndExitsZero() throws {
        let project = try TemporaryProject("""
            default: after
            tasks:
              docs: { run: exit 3, allow_failure: true }
              after: { deps: [docs], run: touch after-ran }
            """)
        let result = try project.run()
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: project.path("after-ran")))
    }

    @Test func timeoutTerminatesTheTaskAndFailsIt() throws {
        let project = try TemporaryProject("""
            tasks:
              slow: { run: sleep 30, timeout: 300ms }
            """)
        let started = Date()
        let result = try project.run("slow", "--grace", "1s")
        #expect(result.status == 1)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(squeezed(result.stdout + result.stderr).contains("timed out after"))
    }

    @Test func twoTasksPrintingTwentyMegabytesOnEachStreamLoseNothing() throws {
        let line = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmno"
        // 100-byte lines, 200,000 of them: 20 MB per stream per task.
        let command = "yes \(line) | head -n 200000; yes \(line) | head -n 200000 >&2"
        let project = try TemporaryProject("""
            default: all
            tasks:
              a: \(command)
              b: \(command)
              all: { deps: [a, b] }
            """)
        // Prefixed output keeps whole lines, so every line of both tasks can be counted.
        let result = try project.run("-j", "2")
        #expect(result.status == 0)
        let out = result.stdout.split(separator: "\n")
        let err = result.stderr.split(separator: "\n")
        for task in ["a", "b"] {
            #expect(out.filter { $0 == "\(task) | \(line)" }.count == 200_000)
            #expect(err.filter { $0 == "\(task) | \(line)" }.count == 200_000)
        }
    }

    /// Issue 29: go-task's habit: a task named `default` is the default when the manifest has no
    /// `default:` key; before, opsrun refused and listed "default" among the tasks to name.
    @Test func aTaskNamedDefaultIsTheDefaultWithoutADefaultKey() throws {
        let project = try TemporaryProject(
            """
            tasks:
              build: echo build
              default:
                deps: [build]
            """)
        let result = try project.run()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(result.stdout.replacing(/[0-9.]+s\n/, with: "Ns\n") == "▶ build\nbuild | build\n✓ build Ns\n1 succeeded\n")
        #expect(try project.run("--list").stdout == "build\ndefault (default)\n")
        // A `default:` key still decides.
        let keyed = try TemporaryProject("default: other\ntasks:\n  other: echo other\n  default: echo default\n")
        #expect(try keyed.run().stdout.contains("other | other\n"))
    }

    /// Issue 29: groups (tasks with only `deps`, an `each` task's instances together) run nothing
    /// and are not counted: two compiles and a link are 3 tasks, not 4.
    @Test func theSummaryCountsTasksNotGroups() throws {
        let project = try TemporaryProject(
            """
            tasks:
              compile:
                each: { SRC: [a.c, b.c] }
                run: echo "$SRC"
              link:
                deps: [compile]
                run: echo link
              test:
                deps: [link]
                run: exit 1
              all:
                deps: [test]
            """)
        let passed = try project.run("link")
        #expect(passed.status == 0)
        #expect(passed.stdout.replacing(/[0-9.]+s\n/, with: "Ns\n").hasSuffix("✓ link Ns\n3 succeeded\n"), "\(passed.stdout)")
        let failed = try project.run("all")
        #expect(failed.status == 1)
        #expect(failed.stdout.replacing(/[0-9.]+s\n/, with: "Ns\n").hasSuffix("""
            3 succeeded, 1 failed
            FAILED   test      exit 1 after Ns
              cancelled  all       prerequisite 'test' failed

            """), "\(failed.stdout)")
    }

    /// Issue 29: after a failure stopped the run, the instances running at the time finished
    /// well, yet their group read "NOT RUN": a group's state follows its prerequisites'.
    /// Handshakes: `fail` fails once both instances have started (a file each), and the
    /// instances end only once the test has seen opsrun report the failure (it then writes `go`).
    @Test func aGroupWhoseInstancesAllSucceededAfterAFailureSucceeds() throws {
        let project = try TemporaryProject(
            """
            tasks:
              compile:
                each: { SRC: [a, b] }
                run: |
                  touch "started-$SRC"
                  i=0; while [ ! -e go ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done
                  echo "$SRC"
              fail:
                run: |
                  i=0; while { [ ! -e started-a ] || [ ! -e started-b ]; } && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done
                  exit 1
              all:
                deps: [compile, fail]
            """)
        let running = try OpsrunBinary.start(["-j", "3", "all"], in: project.url)
        running.waitForOutput(containing: "✗ fail exit 1")
        FileManager.default.createFile(atPath: project.path("go"), contents: nil)
        let result = running.wait()
        #expect(result.status == 1)
        #expect(result.stdout.replacing(/[0-9.]+s\n/, with: "Ns\n").hasSuffix("""
            2 succeeded, 1 failed
            FAILED   fail      exit 1 after Ns
              cancelled  all       prerequisite 'fail' failed

            """), "\(result.stdout)")
        #expect(!result.stdout.contains("NOT RUN"))
    }
}

/// `text` with runs of spaces folded to one, so assertions don't depend on column widths.
func squeezed(_ text: String) -> String {
    text.replacing(/\ +/, with: " ")
}
