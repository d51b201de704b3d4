import Foundation
import Testing

/// A program other than opsrun (a shell, man), run with exactly the environment given.
enum ExternalCommand {
    /// Runs `words` in `directory` with `environment` in place of this process's (nothing
    /// inherited), killed after `deadline` seconds so that a shell waiting for input fails the test.
    static func run(
        _ words: [String], in directory: URL, environment: [String: String], deadline: Int = 60,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> OpsrunBinary.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["--kill-after=5", String(deadline)] + words
        process.currentDirectoryURL = directory
        process.environment = environment
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-e2e-\(UUID().uuidString).out")
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-e2e-\(UUID().uuidString).err")
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: errors)
        }
        do {
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = try FileHandle(forWritingTo: errors)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        } catch {
            Issue.record("could not start \(words[0]): \(error)", sourceLocation: sourceLocation)
            return .init(status: -1, stdout: "", stderr: "")
        }
        process.waitUntilExit()
        let result = OpsrunBinary.Result(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: output, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
        #expect(result.status != 124 && result.status != 137, "\(words[0]) did not finish within \(deadline)s", sourceLocation: sourceLocation)
        return result
    }

}
