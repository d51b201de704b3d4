import Foundation
import Testing

/// A source written while its task ran (docs/manual/up-to-date.md): what the commands read is
/// unknown, so the task runs again next time and the cache keeps nothing of that run. Found by an
/// adversarial probe: an edit made mid-run and put back left "1 up to date" with the edit's
/// output, and a fresh clone restored it from the cache.
extension OutputCacheTests {
    static let editedWhileRunning = """
        tasks:
          copy:
            sources: [in.txt]
            outputs: [out.txt]
            run:
              # An editor saves in.txt while the command runs, before it reads it.
              - if [ -f edit-now ]; then echo two > in.txt; rm edit-now; fi
              - cp in.txt out.txt
        """

    @Test func aSourceEditedWhileItsTaskRanAndPutBackRunsItAgainAndIsNeverRestored() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let first = try TemporaryProject(Self.editedWhileRunning, files: ["in.txt": "one\n", "edit-now": ""])
        #expect(try run(first, "copy").status == 0)
        #expect(try String(contentsOfFile: first.path("out.txt"), encoding: .utf8) == "two\n")
        // A clone with in.txt as it was when the task started: nothing of that run is restored.
        let second = try TemporaryProject(Self.editedWhileRunning, files: ["in.txt": "one\n"])
        let fresh = try run(second, "copy")
        #expect(fresh.stdout.contains("1 succeeded"), "\(fresh.stdout)")
        #expect(try String(contentsOfFile: second.path("out.txt"), encoding: .utf8) == "one\n")
        // Put back as it was when the task started: not up to date (restored from the clone's run).
        try "one\n".write(toFile: first.path("in.txt"), atomically: false, encoding: .utf8)
        let again = try run(first, "copy", "--explain")
        #expect((again.stdout + again.stderr).contains(": source in.txt was written while its last run ran"),
            "\(again.stdout)\(again.stderr)")
        #expect(try String(contentsOfFile: first.path("out.txt"), encoding: .utf8) == "one\n")
    }
}
