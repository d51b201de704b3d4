import Testing

@testable import OpsrunKit
@testable import OpsrunReport

@Suite struct ConsoleBufferingTests {
    private func console(_ transcript: Transcript, buffered: Bool) -> Console {
        Console(
            standardOutput: TranscriptSink(transcript: transcript, stream: .standardOutput),
            standardError: TranscriptSink(transcript: transcript, stream: .standardError),
            width: 80, hasStatusLine: false, buffered: buffered)
    }

    @Test func bufferedLinesWaitForTheFlushAndGoOutAsOneWrite() {
        let transcript = Transcript()
        let console = console(transcript, buffered: true)
        console.write("▶ a\n")
        console.write("✓ a 0.0s\n")
        #expect(transcript.writes.isEmpty)
        console.flush()
        #expect(transcript.writes.map(\.text) == ["▶ a\n✓ a 0.0s\n"])
        console.flush()
        #expect(transcript.writes.count == 1)
    }

    @Test func bufferedWritesKeepTheirOrderAcrossTheTwoStreams() {
        let transcript = Transcript()
        let console = console(transcript, buffered: true)
        console.write("▶ a\n")
        console.write("a: warning\n", to: .standardError)
        console.write("a: more\n", to: .standardError)
        console.write("✓ a 0.0s\n")
        console.flush()
        #expect(transcript.writes.map(\.stream) == [.standardOutput, .standardError, .standardOutput])
        #expect(transcript.combined == "▶ a\na: warning\na: more\n✓ a 0.0s\n")
    }

    @Test func aLargeBatchIsWrittenWithoutWaitingForTheFlush() {
        let transcript = Transcript()
        let console = console(transcript, buffered: true)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 40 * 1024)
        console.write(chunk, to: .standardOutput)
        #expect(transcript.writes.isEmpty)
        console.write(chunk, to: .standardOutput)
        #expect(transcript.standardOutput.utf8.count == 80 * 1024)
    }

    @Test func unbufferedWritesGoOutAtOnce() {
        let transcript = Transcript()
        let console = console(transcript, buffered: false)
        console.write("▶ a\n")
        #expect(transcript.standardOutput == "▶ a\n")
    }
}
