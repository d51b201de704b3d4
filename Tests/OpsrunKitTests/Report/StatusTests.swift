import Glibc
import Testing
@testable import OpsrunCore
@testable import OpsrunEngine
@testable import OpsrunReport

/// A pipe standing in for one of opsrun's streams; what was written is read back once closed.
private final class Captured {
    let writer: FileDescriptorWriter
    private let readEnd: Int32

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        readEnd = fds[0]
        writer = FileDescriptorWriter(fileDescriptor: fds[1])
    }

    /// Everything written, after closing the writing end (small texts: they fit the pipe).
    func text() -> String {
        close(writer.fileDescriptor)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(readEnd, &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        close(readEnd)
        return String(decoding: bytes, as: UTF8.self)
    }
}

@Suite struct StatusTests {
    private func status() -> (Status, out: Captured, err: Captured) {
        let out = Captured(), err = Captured()
        let status = Status(
            streams: OutputStreams(standardOutput: out.writer, standardError: err.writer),
            environment: OutputEnvironment())
        return (status, out, err)
    }

    @Test func resultsGoToStandardOutputAndEverythingElseToStandardError() {
        let (status, out, err) = status()
        status.result("build\ntest\n")
        status.explain("build runs: no record of a previous run")
        status.warning(".opsrun/state: warning: damaged")
        status.error("error: unknown task 'tset'")
        #expect(out.text() == "build\ntest\n")
        #expect(err.text() == """
            build runs: no record of a previous run
            .opsrun/state: warning: damaged
            error: unknown task 'tset'

            """)
    }

    @Test func duringARunReasonsGoAmongTheRunsLinesAndWarningsSurviveQuiet() {
        let (status, out, err) = status()
        let specs = [task("a", ["true"])]
        var options = RunPrinter.Options()
        options.verbosity = .quiet
        let printer = status.startRun(specs: specs, options: options)
        printer.handle(.operationStarted(index: 0, attempt: 1))
        status.explain("a runs: command changed")
        status.warning(".opsrun/state: warning: could not be written")
        printer.handle(.finished(index: 0, .succeeded, result: result(.exited(0), 0, 0.1)))
        status.runEnded(RunReport(operations: [], signal: nil, stoppedAfterFailure: nil), specs: [], style: TerminalStyle(enabled: false))
        // -q: the reason is left out, the warning is not; the summary follows the run.
        #expect(err.text() == ".opsrun/state: warning: could not be written\n")
        #expect(out.text().hasPrefix("0 succeeded"))
    }

    @Test func aReportOnStandardOutputMovesTheRunsOutputToStandardError() {
        let (status, out, err) = status()
        status.giveStandardOutputToReport()
        let printer = status.startRun(specs: [task("a", ["true"])], options: RunPrinter.Options())
        printer.handle(.operationStarted(index: 0, attempt: 1))
        status.runEnded(RunReport(operations: [], signal: nil, stoppedAfterFailure: nil), specs: [], style: TerminalStyle(enabled: false))
        #expect(out.text() == "")
        #expect(err.text().hasPrefix("▶ a\n"))
    }
}
