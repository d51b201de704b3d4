import Foundation
import Testing

/// Every example runs as its README line says, from a copy so the repository stays clean.
@Suite struct ExamplesTests {
    /// A fresh copy of the example, without what earlier runs left in it (outputs, `.opsrun/`).
    func copy(_ name: String) throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-example-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: OpsrunBinary.examples.appendingPathComponent(name), to: copy)
        for leftover in ["build", ".opsrun"] {
            try? FileManager.default.removeItem(at: copy.appendingPathComponent(leftover))
        }
        return copy
    }

    @Test(arguments: [("hello", Int32(0)), ("diamond", 0), ("pipeline", 0), ("failing", 1), ("cycle", 2)])
    func exampleRunsWithItsExpectedStatus(name: String, status: Int32) throws {
        let copy = try copy(name)
        defer { try? FileManager.default.removeItem(at: copy) }
        let plan = try OpsrunBinary.run(["-n"], in: copy)
        #expect(plan.status == (status == 2 ? 2 : 0))
        let run = try OpsrunBinary.run([], in: copy)
        #expect(run.status == status, "\(run.stdout)\(run.stderr)")
    }

    @Test func pipelinePackagesItsArchiveAfterEveryCheck() throws {
        let copy = try copy("pipeline")
        defer { try? FileManager.default.removeItem(at: copy) }
        let run = try OpsrunBinary.run(["-j", "2"], in: copy)
        #expect(run.status == 0)
        #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent("build/app.tgz").path))
        #expect(run.stdout.hasSuffix("7 succeeded\n"))
    }
}
