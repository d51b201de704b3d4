import Foundation
import Testing

/// docs/manual/running.md and issue 15 through the real binary: the queue weighs the work behind each task by how
/// long it took last time, kept in `.opsrun/durations`, so a long task starts first the next time.
@Suite struct CriticalPathTests {
    @Test func theOrderFollowsTheDurationsOfTheFirstRun() throws {
        let project = try TemporaryProject("""
            default: all
            tasks:
              quick-1: echo quick-1 >> order.log
              quick-2: echo quick-2 >> order.log
              slow: echo slow >> order.log && sleep 0.5
              quick-3: echo quick-3 >> order.log
              all: { deps: [quick-1, quick-2, slow, quick-3] }
            """)
        func order() throws -> [String] {
            let path = project.path("order.log")
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        }
        // Nothing recorded yet: manifest order.
        #expect(try project.run("-j", "1").status == 0)
        #expect(try order() == ["quick-1", "quick-2", "slow", "quick-3"])
        #expect(FileManager.default.fileExists(atPath: project.path(".opsrun/durations")))
        // The plan and the run both start the slow one first now.
        #expect(try project.run("-n", "-j", "1").stdout.hasPrefix("wave 1:\n  slow\n"))
        #expect(try project.run("-j", "1").status == 0)
        // The quick ones follow in the order of their own (noisy) durations.
        let second = try order()
        #expect(second.first == "slow")
        #expect(second.sorted() == ["quick-1", "quick-2", "quick-3", "slow"])
    }
}
