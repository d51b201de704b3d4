import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/running.md, "Suspending": Ctrl-Z suspends the run as a whole, as a suspended
/// `OperationQueue`: every running task's process group is stopped, then opsrun; `fg` continues
/// them all where they were. Played through a real shell with job control on a terminal.
@Suite struct SuspendTests {
    /// A task that adds a line to `ticks` every 0.1 s until the file `enough` exists, its shell's
    /// pid in `tick.pid`.
    static let ticking = """
        tasks:
          tick: |
            echo $$ > tick.pid
            while [ ! -e enough ]; do echo tick >> ticks; sleep 0.1; done
        """

    @Test func ctrlZStopsTheRunningTaskAndFgContinuesIt() throws {
        let project = try TemporaryProject(Self.ticking)
        let shell = try OpsrunOnTerminal.interactiveShell()
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt), "no prompt: \(shell.transcript.debugDescription)")
        shell.type("'\(OpsrunBinary.path)' -C '\(project.url.path)' tick\n")
        let task = try #require(ProcessProbe.pid(writtenTo: project.path("tick.pid")), "the task never started")
        let opsrun = try #require(ProcessProbe.parentAndGroup(of: task)?.parent)
        try #require(waitUntil("the task's first lines") { lineCount(project.path("ticks")) >= 2 })

        let beforeStop = shell.transcript.utf8.count
        shell.type("\u{1A}")  // Ctrl-Z
        // The handshakes: the shell saw its job stop, and every process of the task's group
        // (its shell, its `sleep`) is stopped too.
        try #require(shell.read(until: "Stopped", after: beforeStop, seconds: 10), "\(shell.transcript.debugDescription)")
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt, after: beforeStop), "\(shell.transcript.debugDescription)")
        #expect(ProcessProbe.state(of: opsrun) == "T")
        try #require(waitUntil("the task's processes stopped", seconds: 10) { ProcessProbe.isStopped(group: task) })
        let whileStopped = lineCount(project.path("ticks"))
        // The assertion window: ten of the task's ticks.
        usleep(1_000_000)
        #expect(lineCount(project.path("ticks")) == whileStopped, "the task went on while opsrun was stopped")
        #expect(ProcessProbe.isStopped(group: task))

        shell.type("fg\n")
        try #require(waitUntil("the task going on after fg") { lineCount(project.path("ticks")) > whileStopped })
        FileManager.default.createFile(atPath: project.path("enough"), contents: nil)
        let afterFg = shell.transcript.utf8.count
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt, after: afterFg), "\(shell.transcript.debugDescription)")
        #expect(lastExitStatus(in: shell) == 0, "\(shell.transcript.debugDescription)")
        #expect(shell.transcript.contains("1 succeeded"), "\(shell.transcript.debugDescription)")
    }

    /// The timeout counts only the time the run ran: stopped (SIGTSTP to opsrun) for longer than
    /// the task's whole timeout, it still succeeds.
    @Test func aTaskTimeoutDoesNotCountTheTimeTheRunWasStopped() throws {
        let gate = try Gate()
        let project = try TemporaryProject("""
            tasks:
              slow:
                timeout: 2s
                run: |
                  echo $$ > slow.pid
                  \(gate.wait)
                  echo finished
            """)
        let shell = try OpsrunOnTerminal.interactiveShell()
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt), "no prompt: \(shell.transcript.debugDescription)")
        shell.type("'\(OpsrunBinary.path)' -C '\(project.url.path)' slow\n")
        let task = try #require(ProcessProbe.pid(writtenTo: project.path("slow.pid")), "the task never started")
        let opsrun = try #require(ProcessProbe.parentAndGroup(of: task)?.parent)

        let beforeStop = shell.transcript.utf8.count
        kill(opsrun, SIGTSTP)
        try #require(shell.read(until: "Stopped", after: beforeStop, seconds: 10), "\(shell.transcript.debugDescription)")
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt, after: beforeStop), "\(shell.transcript.debugDescription)")
        try #require(waitUntil("the task's processes stopped", seconds: 10) { ProcessProbe.isStopped(group: task) })
        // Stopped for longer than the whole timeout: this wait is the test.
        usleep(2_500_000)

        shell.type("fg\n")
        try #require(waitUntil("the task continued") { ProcessProbe.state(of: task) != "T" })
        gate.release()
        let afterFg = shell.transcript.utf8.count
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt, after: afterFg), "\(shell.transcript.debugDescription)")
        #expect(lastExitStatus(in: shell) == 0, "\(shell.transcript.debugDescription)")
        #expect(shell.transcript.contains("1 succeeded"), "\(shell.transcript.debugDescription)")
    }

    /// A service is stopped with the tasks, and its `ready_timeout` counts only the time the run
    /// ran: stopped for longer than it while still not ready, it becomes ready after `fg`, and
    /// its dependent runs.
    @Test func aServiceIsStoppedTooAndItsReadyTimeoutDoesNotCountTheTimeStopped() throws {
        let project = try TemporaryProject("""
            tasks:
              server:
                service: true
                run: echo $$ > server.pid; exec sleep 60
                ready: test -e up
                ready_timeout: 2s
              client:
                deps: [server]
                run: echo served
            """)
        let shell = try OpsrunOnTerminal.interactiveShell()
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt), "no prompt: \(shell.transcript.debugDescription)")
        shell.type("'\(OpsrunBinary.path)' -C '\(project.url.path)' client\n")
        let server = try #require(ProcessProbe.pid(writtenTo: project.path("server.pid")), "the service never started")
        let opsrun = try #require(ProcessProbe.parentAndGroup(of: server)?.parent)

        let beforeStop = shell.transcript.utf8.count
        kill(opsrun, SIGTSTP)
        try #require(shell.read(until: "Stopped", after: beforeStop, seconds: 10), "\(shell.transcript.debugDescription)")
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt, after: beforeStop), "\(shell.transcript.debugDescription)")
        try #require(waitUntil("the service stopped", seconds: 10) { ProcessProbe.isStopped(group: server) })
        // Stopped, not ready, for longer than the whole ready_timeout: this wait is the test.
        usleep(2_500_000)

        shell.type("fg\n")
        try #require(waitUntil("the service continued") { ProcessProbe.state(of: server) != "T" })
        FileManager.default.createFile(atPath: project.path("up"), contents: nil)
        let afterFg = shell.transcript.utf8.count
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt, after: afterFg), "\(shell.transcript.debugDescription)")
        #expect(lastExitStatus(in: shell) == 0, "\(shell.transcript.debugDescription)")
        #expect(shell.transcript.contains("client | served"), "\(shell.transcript.debugDescription)")
    }

    /// An interactive task is the terminal's foreground group: Ctrl-Z stops it, not opsrun. The
    /// run is suspended with it, so the shell gets the terminal back; `fg` gives it to the task
    /// again, which reads on.
    /// A process a task started with `setsid`, adopted by opsrun once its task ended, is stopped
    /// with the run and continued with it (found by an adversarial probe: it kept running).
    @Test func anAdoptedOrphanIsStoppedWithTheRunAndContinuedWithIt() throws {
        let gate = try Gate()
        let project = try TemporaryProject("""
            tasks:
              detach:
                # It ends once the process has left its group (else, still in the group when this
                # shell exits, it would be ended with the group's leftovers).
                run: >-
                  setsid sh -c 'echo $$ > orphan.pid; while [ ! -e enough ]; do sleep 0.05; done' > /dev/null 2>&1 &
                  while [ ! -s orphan.pid ]; do sleep 0.01; done
              hold:
                run: |
                  echo $$ > hold.pid
                  \(gate.wait)
              all:
                deps: [detach, hold]
            """)
        let shell = try OpsrunOnTerminal.interactiveShell()
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt), "no prompt: \(shell.transcript.debugDescription)")
        shell.type("'\(OpsrunBinary.path)' -C '\(project.url.path)' --grace 1s all\n")
        let hold = try #require(ProcessProbe.pid(writtenTo: project.path("hold.pid")), "the task never started")
        let orphan = try #require(ProcessProbe.pid(writtenTo: project.path("orphan.pid")), "the orphan never started")
        let opsrun = try #require(ProcessProbe.parentAndGroup(of: hold)?.parent)
        try #require(waitUntil("opsrun adopted the orphan") { ProcessProbe.parentAndGroup(of: orphan)?.parent == opsrun })

        let beforeStop = shell.transcript.utf8.count
        kill(opsrun, SIGTSTP)
        try #require(shell.read(until: "Stopped", after: beforeStop, seconds: 10), "\(shell.transcript.debugDescription)")
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt, after: beforeStop), "\(shell.transcript.debugDescription)")
        #expect(waitUntil("the orphan stopped", seconds: 10) { ProcessProbe.state(of: orphan) == "T" })

        shell.type("fg\n")
        #expect(waitUntil("the orphan continued") { ProcessProbe.state(of: orphan) != "T" })
        FileManager.default.createFile(atPath: project.path("enough"), contents: nil)
        gate.release()
        let afterFg = shell.transcript.utf8.count
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt, after: afterFg), "\(shell.transcript.debugDescription)")
        #expect(lastExitStatus(in: shell) == 0, "\(shell.transcript.debugDescription)")
    }

    @Test func ctrlZAtAnInteractiveTaskSuspendsTheRunAndFgGivesTheTaskTheTerminalBack() throws {
        let project = try TemporaryProject("""
            tasks:
              ask:
                interactive: true
                run: echo $$ > ask.pid; printf 'name? '; read -r answer; echo "got $answer"
            """)
        let shell = try OpsrunOnTerminal.interactiveShell()
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt), "no prompt: \(shell.transcript.debugDescription)")
        let beforeRun = shell.transcript.utf8.count
        shell.type("'\(OpsrunBinary.path)' -C '\(project.url.path)' ask\n")
        try #require(shell.read(until: "name? ", after: beforeRun), "\(shell.transcript.debugDescription)")
        let task = try #require(ProcessProbe.pid(writtenTo: project.path("ask.pid")), "the task never started")
        let opsrun = try #require(ProcessProbe.parentAndGroup(of: task)?.parent)

        let beforeStop = shell.transcript.utf8.count
        shell.type("\u{1A}")  // Ctrl-Z, to the task
        try #require(shell.read(until: "Stopped", after: beforeStop, seconds: 10), "\(shell.transcript.debugDescription)")
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt, after: beforeStop), "\(shell.transcript.debugDescription)")
        #expect(ProcessProbe.state(of: opsrun) == "T")
        #expect(ProcessProbe.state(of: task) == "T")

        shell.type("fg\n")
        // The task reads what is typed once it runs again, the terminal its own.
        try #require(waitUntil("the task continued") { ProcessProbe.state(of: task) != "T" })
        let beforeFg = shell.transcript.utf8.count
        shell.type("me\n")
        try #require(shell.read(until: "got me", after: beforeFg), "\(shell.transcript.debugDescription)")
        try #require(shell.read(until: OpsrunOnTerminal.shellPrompt, after: beforeFg), "\(shell.transcript.debugDescription)")
        #expect(lastExitStatus(in: shell) == 0, "\(shell.transcript.debugDescription)")
    }
}

/// The exit status of the shell's last command (`$?`), once it has ended and the shell prompts again.
private func lastExitStatus(in shell: OpsrunOnTerminal) -> Int? {
    let before = shell.transcript.utf8.count
    shell.type("echo \"exit status $?\"\n")
    guard shell.read(until: "\n" + OpsrunOnTerminal.shellPrompt, after: before) else { return nil }
    let text = String(decoding: shell.transcript.utf8.dropFirst(before), as: UTF8.self)
    guard let match = text.firstMatch(of: /exit status (\d+)/) else { return nil }
    return Int(match.1)
}

/// The lines of the file at `path` (0 when there is none).
private func lineCount(_ path: String) -> Int {
    guard let data = FileManager.default.contents(atPath: path) else { return 0 }
    return data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
}
