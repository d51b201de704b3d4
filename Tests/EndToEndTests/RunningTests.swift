import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §4 through the real binary and real processes: order, bounds, environment, failures.
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: OpsrunBinary.path)
        process.currentDirectoryURL = project.url
        process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
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
        var manifest = "default: all\ntasks:\n"
        for i in 0..<6 { manifest += "  t\(i): echo start >> log; sleep 0.2; echo end >> log\n" }
        manifest += "  all: { deps: [t0, t1, t2, t3, t4, t5] }\n"
        let project = try TemporaryProject(manifest)
        // Joined, as make users type it (`-j 2` is used by the other tests).
        let result = try project.run("-j2")
        #expect(result.status == 0)
        let log = try String(contentsOfFile: project.path("log"), encoding: .utf8).split(separator: "\n")
        var running = 0
        var most = 0
        for line in log {
            running += line == "start" ? 1 : -1
            most = max(most, running)
        }
        #expect(log.count == 12)
        #expect(most == 2)
    }

    @Test func fortyCommandsAtOnceRunUnderASoftLimitOfSixtyFourDescriptors() throws {
        // Each running command takes five descriptors; opsrun raises its soft limit to the hard
        // one when it runs out, and gives every command the limit it was started with.
        var manifest = "default: all\ntasks:\n"
        for i in 0..<40 { manifest += "  t\(i): sleep 0.3\n" }
        manifest += "  all: { deps: [\((0..<40).map { "t\($0)" }.joined(separator: ", "))], run: ulimit -n }\n"
        let project = try TemporaryProject(manifest)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "ulimit -Sn 64 && exec \"$0\" -j 40", OpsrunBinary.path]
        shell.currentDirectoryURL = project.url
        shell.environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"]
        let output = Pipe()
        shell.standardOutput = output
        shell.standardError = output
        try shell.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0, "\(text)")
        #expect(text.contains("41 succeeded"))
        #expect(text.contains("all | 64"))
    }

    @Test func namedQueueBoundsItsOwnTasks() throws {
        var manifest = "default: all\nqueues:\n  db: { max: 1 }\ntasks:\n"
        for i in 0..<3 { manifest += "  q\(i): { queue: db, run: echo start >> log; sleep 0.2; echo end >> log }\n" }
        manifest += "  all: { deps: [q0, q1, q2] }\n"
        let project = try TemporaryProject(manifest)
        let result = try project.run("-j", "3")
        #expect(result.status == 0)
        let log = try String(contentsOfFile: project.path("log"), encoding: .utf8).split(separator: "\n")
        #expect(log == ["start", "end", "start", "end", "start", "end"])
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
}

/// `text` with runs of spaces folded to one, so assertions don't depend on column widths.
func squeezed(_ text: String) -> String {
    text.replacing(/\ +/, with: " ")
}
