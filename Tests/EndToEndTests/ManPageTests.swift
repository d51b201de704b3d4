import Foundation
import Testing

/// SPEC §14: docs/opsrun.1 is what swift-argument-parser's manual generator makes of the command
/// today: an option added or a help text changed without regenerating it (`opsrun man`) fails here.
@Suite struct ManPageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized

    /// The generator the `GenerateManual` plugin runs: `generate-manual`, built by `swift build
    /// --product generate-manual` (Tests/all.sh and `opsrun man` build it), or the copy the
    /// plugin builds for itself, `generate-manual-tool`.
    static var generator: String? {
        let besideOpsrun = URL(fileURLWithPath: OpsrunBinary.path).deletingLastPathComponent()
        let directories = [besideOpsrun, repository.appendingPathComponent(".build/debug")]
        return ["generate-manual", "generate-manual-tool"]
            .flatMap { name in directories.map { $0.appendingPathComponent(name).path } }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The page's lines but its date (`.Dd`, when it was made); the file written has no final newline.
    func undated(_ page: String) -> [Substring] {
        page.split(separator: "\n").filter { !$0.hasPrefix(".Dd ") }
    }

    @Test func theManPageIsWhatTheGeneratorMakesToday() throws {
        guard let generator = Self.generator else {
            Issue.record("no generate-manual-tool: build it with 'swift build --product generate-manual'")
            return
        }
        let result = OpsrunBinary.run(launcher: [generator], ["--output-directory", "-"], in: Self.repository)
        #expect(result.status == 0, "\(result.stderr)")
        let committed = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/opsrun.1"), encoding: .utf8)
        #expect(result.stdout.contains(".Nm opsrun\n"))
        let (old, new) = (undated(committed), undated(result.stdout))
        // The first difference only: the whole pages would bury it.
        let difference: String? = old == new ? nil
            : zip(old, new).first { $0 != $1 }.map { "'\($0)' where the generator writes '\($1)'" }
                ?? "\(old.count) lines where the generator writes \(new.count)"
        #expect(difference == nil, "docs/opsrun.1 is out of date: run 'opsrun man'")
    }
}
