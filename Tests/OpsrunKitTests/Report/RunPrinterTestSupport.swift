@testable import OpsrunKit
@testable import OpsrunEngine
@testable import OpsrunReport

/// Everything a printer wrote, per stream and in the order written.
final class Transcript {
    private(set) var writes: [(stream: OutputStreamKind, text: String)] = []

    var standardOutput: String { text(of: .standardOutput) }
    var standardError: String { text(of: .standardError) }
    /// Both streams as one would see them on a shared terminal.
    var combined: String { writes.map(\.text).joined() }

    func text(of stream: OutputStreamKind) -> String {
        writes.filter { $0.stream == stream }.map(\.text).joined()
    }

    fileprivate func record(_ buffer: UnsafeRawBufferPointer, _ stream: OutputStreamKind) {
        writes.append((stream, String(decoding: buffer, as: UTF8.self)))
    }
}

/// A sink that records into a transcript.
struct TranscriptSink: OutputSink {
    let transcript: Transcript
    let stream: OutputStreamKind

    func write(_ buffer: UnsafeRawBufferPointer) {
        transcript.record(buffer, stream)
    }
}

/// A task for printer tests: its commands (none makes a group), retries and timeout.
func task(
    _ name: String, _ commands: [String]? = nil, retries: Int = 0, timeoutMilliseconds: Int? = nil,
    interactive: Bool = false, allowFailure: Bool = false
) -> OperationSpec {
    OperationSpec(
        name: name,
        job: CommandJob(
            id: -1, taskName: name, commands: commands ?? ["run \(name)"], workingDirectory: "/",
            environment: [], timeoutMilliseconds: timeoutMilliseconds),
        retries: retries, allowFailure: allowFailure, interactive: interactive)
}

func group(_ name: String) -> OperationSpec { task(name, []) }

/// A job result from `start` to `end` seconds.
func result(
    _ termination: Termination, _ start: Double = 0, _ end: Double, timedOut: Bool = false,
    spawnFailure: String? = nil, commandIndex: Int = 0
) -> JobResult {
    JobResult(
        termination: termination, commandIndex: commandIndex, timedOut: timedOut,
        spawnFailure: spawnFailure, startNanoseconds: UInt64(start * 1e9),
        endNanoseconds: UInt64(end * 1e9))
}

/// A printer writing into a transcript, fed `events` and finished.
func printed(
    _ specs: [OperationSpec], options: RunPrinter.Options = RunPrinter.Options(),
    lineLimit: Int? = nil, spoolMemoryLimit: Int? = nil, _ events: [RunEvent], finish: Bool = true
) -> Transcript {
    var options = options
    if let lineLimit { options.lineLimit = lineLimit }
    if let spoolMemoryLimit { options.spoolMemoryLimit = spoolMemoryLimit }
    let transcript = Transcript()
    let printer = RunPrinter(
        specs: specs, options: options,
        sinks: (
            TranscriptSink(transcript: transcript, stream: .standardOutput),
            TranscriptSink(transcript: transcript, stream: .standardError)
        ))
    for event in events { printer.handle(event) }
    if finish { printer.finish() }
    return transcript
}

func out(_ index: Int, _ text: String) -> RunEvent {
    .output(index: index, .standardOutput, Array(text.utf8))
}
func err(_ index: Int, _ text: String) -> RunEvent {
    .output(index: index, .standardError, Array(text.utf8))
}
func start(_ index: Int, attempt: Int = 1) -> RunEvent {
    .operationStarted(index: index, attempt: attempt)
}
func succeeded(_ index: Int, _ start: Double = 0, _ end: Double) -> RunEvent {
    .finished(index: index, .succeeded, result: result(.exited(0), start, end))
}
func failed(_ index: Int, _ termination: Termination, _ start: Double = 0, _ end: Double)
    -> RunEvent
{
    .finished(index: index, .failed, result: result(termination, start, end))
}

/// The escape that clears the status line.
let clear = "\r\u{1B}[K"
