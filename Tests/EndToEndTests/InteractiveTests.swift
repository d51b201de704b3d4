import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/running.md: "an `interactive: true` task gets the terminal and runs alone", on a real terminal.
@Suite struct InteractiveTests {
    /// With and without Swift's backtracer, whose crash handlers change how a child is spawned
    /// (with every signal blocked around the clone when any signal has a handler).
    @Test(arguments: ["enable=no", "enable=yes"])
    func interactiveTaskReadsTheTerminalAndEachCommandGetsItBack(backtrace: String) throws {
        let project = try TemporaryProject("""
            tasks:
              ask:
                interactive: true
                run:
                  - printf 'first? '; read -r answer; echo "got $answer"
                  - printf 'second? '; read -r answer; echo "got $answer"; exit 3
            """)
        let terminal = try OpsrunOnTerminal(["ask"], in: project.url, environment: ["SWIFT_BACKTRACE": backtrace])
        try #require(terminal.read(until: "first? "), "no prompt: \(terminal.transcript.debugDescription)")
        terminal.type("one\n")
        // The second command can read only if opsrun took the terminal back after the first.
        try #require(terminal.read(until: "second? "), "no prompt: \(terminal.transcript.debugDescription)")
        terminal.type("two\n")
        #expect(terminal.waitForExit() == 1)
        #expect(terminal.transcript.contains("first? one\r\ngot one\r\nsecond? two\r\ngot two\r\n"),
            "\(terminal.transcript.debugDescription)")
        #expect(terminal.transcript.contains("\r\nFAILED   ask       exit 3 after "))
    }
}
