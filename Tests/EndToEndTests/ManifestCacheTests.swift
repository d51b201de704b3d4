import Foundation
import Testing

/// `.opsrun/manifest.cache` through the real binary: a hit prints what a parse prints, and nothing
/// about the manifest can change without the cache being ignored.
@Suite struct ManifestCacheEndToEndTests {
    /// 800 tasks with descriptions, deps and commands: about 100 KB, above the 64 KiB threshold.
    static func largeManifest(description: String = "the first task") -> String {
        var lines = ["default: all", "tasks:", "  t0:", "    desc: \(description)", "    run: echo t0"]
        for i in 1..<800 {
            lines += ["  t\(i):", "    desc: Task \(i) of a manifest large enough to be cached",
                      "    deps: [t\(i - 1)\(i > 2 ? ", t\(i / 2)" : "")]", "    run: echo t\(i) > /dev/null"]
        }
        lines += ["  all:", "    deps: [t799, t400]"]
        return lines.joined(separator: "\n") + "\n"
    }

    func outputs(_ project: TemporaryProject) throws -> [String] {
        try [["--list"], ["--graph", "t5"], ["-n", "t30"], ["--list", "--format", "json"]].map { arguments in
            let result = try OpsrunBinary.run(arguments, in: project.url)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result.stdout
        }
    }

    @Test func aHitPrintsWhatAParsePrints() throws {
        let project = try TemporaryProject(Self.largeManifest())
        let cache = project.path(".opsrun/manifest.cache")
        let parsed = try outputs(project)
        // Written alongside the run, but finished before opsrun exits: no temporary file is left.
        #expect(FileManager.default.fileExists(atPath: cache))
        let left = try FileManager.default.contentsOfDirectory(atPath: project.path(".opsrun"))
        #expect(!left.contains { $0.hasSuffix(".tmp") }, "\(left)")
        let written = try FileManager.default.attributesOfItem(atPath: cache)[.modificationDate] as? Date
        let cached = try outputs(project)
        #expect(cached == parsed)
        #expect(parsed[2].contains("$ echo t30 > /dev/null"))
        // Hits read the cache and leave it alone.
        #expect(try FileManager.default.attributesOfItem(atPath: cache)[.modificationDate] as? Date == written)
    }

    @Test func anEditKeepingSizeAndTimeIsSeen() throws {
        let project = try TemporaryProject(Self.largeManifest(description: "the first task"))
        let manifest = project.path("Tasksfile.yaml")
        let time = try FileManager.default.attributesOfItem(atPath: manifest)[.modificationDate] as! Date
        #expect(try project.run("--list").stdout.contains("the first task"))
        try Self.largeManifest(description: "the FIRST task").write(toFile: manifest, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: manifest)
        #expect(try project.run("--list").stdout.contains("the FIRST task"))
    }

    @Test func aTruncatedOrCorruptCacheIsIgnoredAndRewritten() throws {
        let project = try TemporaryProject(Self.largeManifest())
        let cache = project.path(".opsrun/manifest.cache")
        let expected = try project.run("--list").stdout
        let good = try Data(contentsOf: URL(fileURLWithPath: cache))
        var corrupt = good
        corrupt[good.count / 2] ^= 0x40
        for damaged in [good.prefix(good.count / 3), corrupt, Data("garbage".utf8)] {
            try damaged.write(to: URL(fileURLWithPath: cache))
            let result = try project.run("--list")
            #expect(result.status == 0 && result.stderr == "")
            #expect(result.stdout == expected)
            #expect(try Data(contentsOf: URL(fileURLWithPath: cache)) == good)
        }
    }

    @Test func smallManifestsWriteNoCache() throws {
        let project = try TemporaryProject("tasks:\n  hello: echo hi\n")
        #expect(try project.run("--list").status == 0)
        #expect(try project.run("-n", "hello").status == 0)
        #expect(!FileManager.default.fileExists(atPath: project.path(".opsrun/manifest.cache")))
    }

    @Test func errorsAfterAHitStillCarryLineAndColumn() throws {
        let project = try TemporaryProject(Self.largeManifest())
        #expect(try project.run("--list").status == 0)
        #expect(try project.run("--list").status == 0)  // a hit
        // The same manifest with one typo: parsed again, and the error points at it.
        let broken = Self.largeManifest().replacingOccurrences(of: "  t3:\n    desc:", with: "  t3:\n    dsec:")
        try broken.write(toFile: project.path("Tasksfile.yaml"), atomically: false, encoding: .utf8)
        let result = try project.run("--list")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("""
            Tasksfile.yaml:15:5: error: unknown key 'dsec' in task 't3'; did you mean 'desc'?
                dsec: Task 3 of a manifest large enough to be cached
                ^
            """))
    }
}
