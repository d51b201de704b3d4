import Foundation
import OpsrunKit
import Testing
@testable import OpsrunEngine
@testable import OpsrunProcess

@Suite struct ProcessRunnerTests {
    @Test func outputArrivesIntactInOrderOnTheRightStream() {
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["printf 'first\\n'; printf 'oops\\n' >&2; seq 1 100000"]))
        let numbers = (1...100_000).map { "\($0)\n" }.joined()
        #expect(log.outputText == "first\n" + numbers)
        #expect(log.errorText == "oops\n")
        #expect(log.commandsStarted == [0])
        #expect(log.result?.termination == .exited(0))
        #expect(log.result?.succeeded == true)
        #expect(log.eventsAfterFinish == 0)
    }

    @Test func exitCodesAndSignalsAreReported() {
        let driver = RunnerDriver()
        driver.start(makeJob(1, ["exit 3"]))
        driver.start(makeJob(2, ["kill -9 $$"]))
        driver.start(makeJob(3, ["kill -TERM $$"]))
        driver.run()
        #expect(driver.logs[1]?.result?.termination == .exited(3))
        #expect(driver.logs[2]?.result?.termination == .signaled(SIGKILL))
        #expect(driver.logs[3]?.result?.termination == .signaled(SIGTERM))
        #expect(driver.logs[2]?.result?.succeeded == false)
    }

    @Test func commandListStopsAtTheFirstFailure() {
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["echo a", "echo b; exit 4", "echo c"]))
        #expect(log.outputText == "a\nb\n")
        #expect(log.commandsStarted == [0, 1])
        #expect(log.result?.commandIndex == 1)
        #expect(log.result?.termination == .exited(4))
    }

    @Test func everyCommandRunsWhenEachSucceeds() {
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["echo a", "echo b", "echo c"]))
        #expect(log.outputText == "a\nb\nc\n")
        #expect(log.commandsStarted == [0, 1, 2])
        #expect(log.result?.commandIndex == 2)
        #expect(log.result?.termination == .exited(0))
        let result = log.result!
        #expect(result.startNanoseconds > 0 && result.endNanoseconds >= result.startNanoseconds)
    }

    @Test func environmentIsExactlyTheJobsAndDirectoryIsHonoured() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver()
        let log = driver.runJob(
            makeJob(
                ["env | sort; pwd -P"], directory: directory,
                environment: ["PATH=/usr/bin:/bin", "GREETING=hi there"]))
        // The shell adds PWD itself; nothing of the test process's environment may leak in.
        #expect(
            log.outputText
                == "GREETING=hi there\nPATH=/usr/bin:/bin\nPWD=\(directory)\n\(directory)\n")
    }

    @Test func missingWorkingDirectoryIsASpawnFailure() {
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["echo never"], directory: "/nonexistent/opsrun-x"))
        #expect(log.result?.spawnFailure == "working directory '/nonexistent/opsrun-x' does not exist")
        #expect(log.result?.termination == .exited(127))
        #expect(log.result?.commandIndex == 0)
        #expect(log.result?.succeeded == false)
        // Announced when its process existed (as make echoes a command it then cannot run).
        #expect(log.commandsStarted == [0])
        #expect(log.standardOutput.isEmpty)
    }

    @Test func directoryRemovedByAnEarlierCommandFailsTheNextSpawn() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["rmdir \"$PWD\"", "echo never"], directory: directory))
        #expect(log.result?.spawnFailure == "working directory '\(directory)' does not exist")
        #expect(log.result?.commandIndex == 1)
        #expect(log.commandsStarted == [0, 1])
    }

    @Test func standardInputIsDevNull() {
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["cat; readlink /proc/self/fd/0"]))
        #expect(log.outputText == "/dev/null\n")
        #expect(log.result?.termination == .exited(0))
    }

    @Test func eachCommandLeadsItsOwnProcessGroup() {
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["echo \"$$ $(cut -d' ' -f5 /proc/$$/stat)\""]))
        let fields = log.outputText.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        #expect(fields.count == 2 && fields[0] == fields[1])
        #expect(fields.first.map { pid_t($0) != getpgrp() } == true)
    }

    @Test func childrenGetAnEmptySignalMaskAndDefaultDispositions() {
        // Block SIGTERM in this thread and ignore SIGPIPE, as the CLI does; the child must see
        // neither.
        var terminate = sigset_t()
        var previous = sigset_t()
        sigemptyset(&terminate)
        sigaddset(&terminate, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &terminate, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let previousPipe = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previousPipe) }
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["grep -E '^Sig(Blk|Ign)' /proc/self/status"]))
        let masks = log.outputText.split(separator: "\n").map {
            UInt64($0.split(separator: "\t").last ?? "", radix: 16)
        }
        // Bit n-1 is signal n. glibc's posix_spawn itself leaves its two internal signals (32, 33,
        // reserved for its threads) ignored; every signal a program can use must be at default.
        let glibcInternal: UInt64 = 1 << 31 | 1 << 32
        #expect(masks.count == 2)
        #expect(masks.first == 0)
        #expect(masks.last.flatMap { $0.map { $0 & ~glibcInternal } } == 0)
    }

    @Test func jobsOneAfterAnotherGetOnlyTheirOwnOutput() {
        // The runner lends each job a pair of pipes from a pool; none may carry a byte of the last.
        let driver = RunnerDriver()
        for id in 1...40 {
            // Every fifth job writes more than a pipe holds, so the drain at exit is exercised.
            let bulk = id % 5 == 0 ? "; head -c 200000 /dev/zero | tr '\\0' x" : ""
            let log = driver.runJob(makeJob(id, ["echo out\(id)\(bulk); echo err\(id) >&2", "echo again\(id)"]))
            let expected = "out\(id)\n" + (bulk.isEmpty ? "" : String(repeating: "x", count: 200_000)) + "again\(id)\n"
            #expect(log.outputText == expected, "job \(id)")
            #expect(log.errorText == "err\(id)\n", "job \(id)")
        }
    }

    @Test func aProcessThatLeftTheGroupAndWritesLaterNeverReachesTheNextJob() throws {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver()
        // setsid: a new session and group, so nothing of job 1's group is left when it ends (the
        // job waits for `escaped.pid`, written once the process has left), but the escaped
        // process keeps its pipes. It writes to them once job 1 is done (`go`), and says so
        // (`wrote`) before job 2 starts.
        let escape = """
            setsid sh -c 'echo $$ > escaped.pid; until [ -e go ]; do sleep 0.01; done
            echo escaped; echo escaped >&2; touch wrote' &
            until [ -s escaped.pid ]; do sleep 0.01; done
            """
        let go = directory + "/go"
        // However the test ends, the escaped process goes on and exits.
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        let first = driver.runJob(makeJob(1, ["\(escape); echo one"], directory: directory))
        #expect(first.outputText == "one\n")
        try #require(FileManager.default.createFile(atPath: go, contents: nil))
        try #require(
            waitUntil { FileManager.default.fileExists(atPath: directory + "/wrote") },
            "the escaped process never wrote")
        let second = driver.runJob(makeJob(2, ["echo two; echo two >&2"]))
        #expect(second.outputText == "two\n")
        #expect(second.errorText == "two\n")
    }

    @Test func twoJobsWritingTwentyMegabytesOnEachStreamLoseNoByte() {
        let size = 20 * 1024 * 1024
        // 16-byte lines, so every byte's expected value follows from its offset.
        let writer = "yes 0123456789abcde | head -c \(size)"
        let command = "\(writer) & \(writer) >&2; wait"
        let pattern = Array("0123456789abcde\n".utf8)
        let driver = RunnerDriver()
        driver.keepsOutput = false
        var counts: [Int: [OutputStreamKind: Int]] = [1: [:], 2: [:]]
        var mismatches = 0
        var largestChunk = 0
        driver.observe = { event in
            guard case .output(let id, let stream, let bytes) = event else { return }
            var offset = counts[id]![stream, default: 0]
            for byte in bytes {
                if byte != pattern[offset & 15] { mismatches += 1 }
                offset += 1
            }
            counts[id]![stream] = offset
            largestChunk = max(largestChunk, bytes.count)
        }
        driver.start(makeJob(1, [command]))
        driver.start(makeJob(2, [command]))
        driver.run()
        for id in [1, 2] {
            #expect(counts[id]![.standardOutput] == size)
            #expect(counts[id]![.standardError] == size)
            #expect(driver.logs[id]?.result?.termination == .exited(0))
        }
        #expect(mismatches == 0)
        #expect(largestChunk <= 64 * 1024)
    }
}
