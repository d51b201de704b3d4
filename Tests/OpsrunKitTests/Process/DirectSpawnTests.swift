import Foundation
import OpsrunKit
import Testing

/// Commands without shell syntax run without `/bin/sh`, yet see what they would have seen with it.
@Suite struct DirectSpawnTests {
    @Test func directCommandGetsTheEnvironmentTheShellWouldPassOn() {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver()
        let log = driver.runJob(
            makeJob(
                ["env"], directory: directory,
                environment: ["PATH=/usr/bin:/bin", "GREETING=hi there", "BAD-NAME=1"]))
        #expect(
            log.outputText == "PATH=/usr/bin:/bin\nGREETING=hi there\nPWD=\(directory)\n")
        #expect(log.result?.succeeded == true)
    }

    @Test func directCommandRunsInTheWorkingDirectoryWithNullInputInItsOwnGroup() throws {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let driver = RunnerDriver()
        let log = driver.runJob(
            makeJob(
                ["/bin/pwd -P", "readlink /proc/self/fd/0", "cat /proc/self/stat"],
                directory: directory))
        let lines = log.outputText.split(separator: "\n").map(String.init)
        try #require(lines.count == 3)
        #expect(lines[0] == directory)
        #expect(lines[1] == "/dev/null")
        // pid (comm) state ppid pgrp ...: the program is its group's leader, and opsrun's child.
        let fields = lines[2].split(separator: ")")[1].split(separator: " ")
        let pid = lines[2].split(separator: " ")[0]
        #expect(fields[1] == "\(getpid())")
        #expect(fields[2] == pid)
    }

    @Test func missingProgramFailsAsWithTheShell() {
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["no-such-program-opsrun --flag"]))
        #expect(log.result?.termination == .exited(127))
        #expect(log.result?.spawnFailure == nil)
        #expect(log.errorText.hasSuffix("no-such-program-opsrun: not found\n"))
    }

    @Test func exitStatusOfADirectCommandIsReported() {
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["false", "/bin/true"]))
        #expect(log.result?.termination == .exited(1))
        #expect(log.result?.commandIndex == 0)
        #expect(log.commandsStarted == [0])
    }

    @Test func programThatStopsBeingDirectlyRunnableDuringARunIsLeftToTheShell() throws {
        let directory = makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let program = directory + "/program"
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: program)
        let driver = RunnerDriver()
        #expect(driver.runJob(makeJob([program])).result?.succeeded == true)
        // Now a script without `#!`: exec fails, and the shell runs it as a shell script.
        try FileManager.default.removeItem(atPath: program)
        try "echo run by the shell\n".write(toFile: program, atomically: false, encoding: .utf8)
        chmod(program, 0o755)
        let log = driver.runJob(makeJob([program]))
        #expect(log.outputText == "run by the shell\n")
        #expect(log.result?.succeeded == true)
        // The retry through the shell is the same command: announced once.
        #expect(log.commandsStarted == [0])
    }
}
