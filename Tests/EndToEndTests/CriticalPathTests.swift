import Foundation
import Testing

/// docs/manual/running.md and issue 15 through the real binary: the queue weighs the work behind each task by how
/// long it took last time, kept in `.opsrun/durations`, so a long task starts first the next time; a task never
/// recorded (issue 30) by the size of its sources, so the largest file starts first on a first clean build.
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

    @Test func aFirstBuildStartsTheTaskThatReadsTheMostFirst() throws {
        // Sorted order puts the large file last, as Lua's `lvm.c` came last among its compiles.
        let project = try TemporaryProject(
            """
            default: all
            tasks:
              compile:
                each: { SRC: "*.c" }
                run: echo "$SRC" >> order.log
                sources: ["${SRC}"]
              stamp: echo stamp >> order.log
              all: { deps: [compile, stamp] }
            """,
            files: [
                "a.c": "int a;\n", "b.c": String(repeating: "int b;\n", count: 20),
                "c.c": String(repeating: "int c;\n", count: 2_000),
            ])
        // Nothing recorded: the sizes order the compiles; `stamp` reads nothing declared and
        // counts as a typical compile (the median size, b.c's), after it in manifest order.
        #expect(try project.run("-n", "-j", "1").stdout == """
            wave 1:
              compile[c.c]
                $ echo "c.c" >> order.log
            wave 2:
              compile[b.c]
                $ echo "b.c" >> order.log
            wave 3:
              stamp
                $ echo stamp >> order.log
            wave 4:
              compile[a.c]
                $ echo "a.c" >> order.log
            wave 5:
              compile (3 instances)
              all (group)

            """)
        #expect(FileManager.default.fileExists(atPath: project.path(".opsrun/durations")) == false)
        #expect(try project.run("-j", "1").status == 0)
        let order = try String(contentsOfFile: project.path("order.log"), encoding: .utf8)
        #expect(order == "c.c\nb.c\nstamp\na.c\n")
    }
}
