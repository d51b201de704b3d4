import Testing

@testable import OpsrunKit

#if canImport(Glibc)
    import Glibc
#endif
@testable import OpsrunCore
@testable import OpsrunReport

@Suite struct PrefixedOutputTests {
    let specs = [task("compile"), task("ld"), group("all")]

    @Test func wholeLinesArePrefixedWithTheNamePaddedToTheLongestAsTheyCome() {
        let transcript = printed(
            specs,
            [
                start(0), start(1),
                out(0, "main.c: in func"), out(1, "linking\n"), out(0, "tion 'f':\nmain.c:3: warn"),
                err(0, "main.c:3: error\n"), out(0, "ing\n"),
                succeeded(1, 0, 0.5), failed(0, .exited(2), 0, 1.3),
            ])
        #expect(
            transcript.standardOutput == """
                ▶ compile
                ▶ ld
                ld      | linking
                compile | main.c: in function 'f':
                compile | main.c:3: warning
                ✓ ld 0.5s
                ✗ compile exit 2 after 1.3s

                """)
        #expect(transcript.standardError == "compile | main.c:3: error\n")
    }

    @Test func aLastLineWithoutNewlineIsPrintedWhenTheTaskEnds() {
        let transcript = printed(
            [task("a")],
            [
                start(0), out(0, "one\ntwo"), err(0, "oops"), succeeded(0, 0, 0.1),
            ])
        #expect(transcript.standardOutput == "▶ a\na | one\na | two\n✓ a 0.1s\n")
        #expect(transcript.standardError == "a | oops\n")
    }

    @Test func aLastLineOfAFailedAttemptIsPrintedBeforeTheRetry() {
        let transcript = printed(
            [task("a", retries: 1)],
            [
                start(0), out(0, "half"),
                .retrying(index: 0, nextAttempt: 2, previous: result(.exited(1), 0, 0.2)),
                start(0, attempt: 2), out(0, "again\n"), succeeded(0, 0.2, 0.5),
            ])
        #expect(
            transcript.standardOutput == """
                ▶ a
                a | half
                ↻ a attempt 2 of 2 (exit 1)
                a | again
                ✓ a 0.5s

                """)
    }

    @Test func aLineLongerThanTheLimitIsPrintedInPieces() {
        let transcript = printed(
            [task("a")], lineLimit: 4,
            [
                start(0), out(0, "abc"), out(0, "defgh"), out(0, "ij\nshort\n"),
                succeeded(0, 0, 0.1),
            ])
        #expect(transcript.standardOutput == "▶ a\na | abcdefgh\na | ij\na | short\n✓ a 0.1s\n")
    }

    @Test func paddingStopsAt24CharactersAndLongerNamesStayWhole() {
        let long = String(repeating: "x", count: 30)
        let transcript = printed(
            [task(long), task("b")],
            [
                start(0), start(1), out(0, "1\n"), out(1, "2\n"),
            ])
        let padded = "b" + String(repeating: " ", count: 23)
        #expect(transcript.standardOutput == "▶ \(long)\n▶ b\n\(long) | 1\n\(padded) | 2\n")
    }

    @Test func verboseEchoesEachCommandInTheTaskColumn() {
        var options = RunPrinter.Options()
        options.verbosity = .verbose
        let transcript = printed(
            [task("compile", ["mkdir -p build", "set -e\ncc -c main.c\n"]), task("ld")],
            options: options,
            [
                start(0), .commandStarted(index: 0, commandIndex: 0),
                .commandStarted(index: 0, commandIndex: 1), out(0, "ok\n"), succeeded(0, 0, 1),
            ])
        #expect(
            transcript.standardOutput == """
                ▶ compile
                compile | $ mkdir -p build
                compile | $ set -e
                compile |   cc -c main.c
                compile | ok
                ✓ compile 1.0s

                """)
    }

    @Test func colourPaintsTheNameAndTheMarks() {
        var options = RunPrinter.Options()
        options.style = TerminalStyle(enabled: true)
        let transcript = printed(
            [task("a")], options: options, [start(0), out(0, "x\n"), succeeded(0, 0, 0.1)])
        #expect(
            transcript.standardOutput == """
                \u{1B}[2m▶\u{1B}[0m a
                \u{1B}[36ma\u{1B}[0m\u{1B}[2m |\u{1B}[0m x
                \u{1B}[32m✓\u{1B}[0m a 0.1s

                """)
    }

    @Test func realFileDescriptorsReceiveTheLines() throws {
        var fds: [Int32] = [0, 0, 0, 0]
        #expect(pipe(&fds[0]) == 0)
        #expect(pipe(&fds[2]) == 0)
        let printer = RunPrinter(
            specs: [task("a")], options: RunPrinter.Options(),
            standardOutput: FileDescriptorWriter(fileDescriptor: fds[1]),
            standardError: FileDescriptorWriter(fileDescriptor: fds[3]))
        for event in [start(0), out(0, "hello\n"), err(0, "bad"), succeeded(0, 0, 2)] {
            printer.handle(event)
        }
        printer.finish()
        close(fds[1])
        close(fds[3])
        #expect(readAll(fds[0]) == "▶ a\na | hello\n✓ a 2.0s\n")
        #expect(readAll(fds[2]) == "a | bad\n")
        close(fds[0])
        close(fds[2])
    }

    private func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
