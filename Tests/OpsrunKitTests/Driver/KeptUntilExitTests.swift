import Foundation
import Testing

@testable import OpsrunCore
@testable import OpsrunKit
@testable import OpsrunReport

/// The executable hands `Driver.run` a `KeptUntilExit` and exits without freeing what it holds.
@Suite struct KeptUntilExitTests {
    @Test func aRunLeavesItsLargeValuesWithTheOwnerItWasGiven() throws {
        let scratch = ScratchDirectory()
        try "version: 1\ntasks:\n  a:\n    run: 'true'\n".write(
            toFile: scratch.absolute("Tasksfile.yaml"), atomically: true, encoding: .utf8)
        var invocation = Invocation()
        invocation.directory = scratch.path
        invocation.targets = ["a"]
        let null = open("/dev/null", O_WRONLY)
        defer { close(null) }
        let writer = FileDescriptorWriter(fileDescriptor: null)
        let status = Status(
            streams: OutputStreams(standardOutput: writer, standardError: writer),
            environment: OutputEnvironment(variables: [:]))
        let kept = KeptUntilExit()
        let code = Driver.run(
            invocation, environment: ["PATH": "/usr/bin:/bin"], status: status, keepingUntilExit: kept)
        #expect(code == .success)
        // The project, the session, and the engine, gate, printer and report of the run.
        #expect(kept.count == 6)
    }
}
