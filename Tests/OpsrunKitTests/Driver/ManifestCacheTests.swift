import Foundation
import Testing

@testable import OpsrunKit
@testable import OpsrunManifest
@testable import OpsrunPlan

/// `Project.load` with `.opsrun/manifest.cache`: a hit is exactly the parsed project.
@Suite struct ManifestCacheTests {
    let scratch = ScratchDirectory()
    var cachePath: String { scratch.absolute(".opsrun/manifest.cache") }

    func load(_ file: String? = nil) throws -> Project {
        return try Project.load(explicitFile: file, workingDirectory: scratch.path)
    }

    @Test func aLargeManifestIsCachedAndAHitEqualsTheParse() throws {
        scratch.write("Tasksfile.yaml", ManifestCacheFixture.yaml(tasks: 800))
        let parsed = try load()
        #expect(scratch.exists(".opsrun/manifest.cache"))
        #expect(String(decoding: scratch.bytes(".opsrun/.gitignore"), as: UTF8.self) == "*\n")
        let cached = try load()
        #expect(cached.manifest == parsed.manifest)
        #expect(cached.graph.prerequisites == parsed.graph.prerequisites)
        #expect(cached.graph.prerequisiteLocations == parsed.graph.prerequisiteLocations)
        #expect(cached.graph.dependents == parsed.graph.dependents)
        #expect(cached.text == parsed.text)
    }

    /// Proves the second load is a hit: a cache holding another manifest under the right key wins.
    @Test func aHitSkipsParsingAndItsLocationsStillRenderWithLineAndCaret() throws {
        let text = ManifestCacheFixture.yaml(tasks: 800)
        scratch.write("Tasksfile.yaml", text)
        let parsed = try load()
        var planted = parsed.manifest
        planted.tasks[5].description = "planted"
        let source = try ManifestLocator.locate(explicitFile: nil, workingDirectory: scratch.path)
        try #require(ManifestCache(source: source, bytes: Array(text.utf8))).store(planted, index: parsed.graph.index)

        let hit = try load()
        #expect(hit.manifest.tasks[5].description == "planted")
        let place = hit.graph.prerequisiteLocations[5][0]
        let rendered = ProjectError(diagnostics: [.error("example", at: place)], sources: [hit.source.displayName: hit.text]).rendered
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)[place.line - 1]
        #expect(rendered == "Tasksfile.yaml:\(place.line):\(place.column): error: example\n\(line)\n"
            + String(repeating: " ", count: place.column - 1) + "^")
        #expect(line.hasPrefix("    deps: [") && place.column == 12)
    }

    @Test func anEditedManifestIsParsedAgainEvenWithTheSameSizeAndTime() throws {
        let text = ManifestCacheFixture.yaml(tasks: 800)
        scratch.write("Tasksfile.yaml", text)
        let path = scratch.absolute("Tasksfile.yaml")
        let time = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date
        _ = try load()
        scratch.write("Tasksfile.yaml", text.replacingOccurrences(of: "Task number 7 of", with: "Task NUMBER 7 of"))
        try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: path)
        #expect(try load().manifest.tasks[7].description == "Task NUMBER 7 of the generated manifest")
    }

    /// docs/manual/includes.md: the cache keys on every file the loader read, and on the absence of the
    /// optional ones it did not find.
    @Test func anEditToAnIncludedManifestOrANewOptionalOneIsParsedAgain() throws {
        let text = ManifestCacheFixture.yaml(tasks: 800)
            .replacingOccurrences(of: "tasks:\n", with: "includes:\n  web: web\n  api: { path: api, optional: true }\ntasks:\n")
        scratch.write("Tasksfile.yaml", text)
        scratch.write("web/Tasksfile.yaml", "tasks:\n  build: { run: echo one, desc: first }\n")
        let first = try load()
        #expect(scratch.exists(".opsrun/manifest.cache"))
        #expect(first.manifest.tasks.last?.description == "first")
        #expect(try load().manifest == first.manifest)  // a hit

        scratch.write("web/Tasksfile.yaml", "tasks:\n  build: { run: echo one, desc: other }\n")
        #expect(try load().manifest.tasks.last?.description == "other")
        scratch.write("api/Tasksfile.yaml", "tasks:\n  test: echo api\n")
        #expect(try load().graph.index["api:test"] != nil)
    }

    @Test func anotherDisplayNameIsAnotherKey() throws {
        scratch.write("Tasksfile.yaml", ManifestCacheFixture.yaml(tasks: 800))
        _ = try load()
        let other = try load("./Tasksfile.yaml")
        #expect(other.manifest.file == "./Tasksfile.yaml")
        #expect(other.graph.prerequisiteLocations[5][0].file == "./Tasksfile.yaml")
    }

    @Test func aDamagedCacheIsIgnoredAndRewritten() throws {
        scratch.write("Tasksfile.yaml", ManifestCacheFixture.yaml(tasks: 800))
        let parsed = try load()
        let good = scratch.bytes(".opsrun/manifest.cache")
        var flipped = good
        flipped[good.count - 100] ^= 0x01
        for damaged in [Array(good.prefix(good.count / 2)), flipped, [], Array("junk".utf8)] {
            scratch.writeBytes(".opsrun/manifest.cache", damaged)
            #expect(try load().manifest == parsed.manifest)
            #expect(scratch.bytes(".opsrun/manifest.cache") == good)
        }
    }

    @Test func smallManifestsAndInvalidOnesAreNotCached() throws {
        scratch.write("Tasksfile.yaml", ManifestCacheFixture.yaml(tasks: 100))
        _ = try load()
        #expect(!scratch.exists(".opsrun"))
        // Large, but with a cycle: `all` depends on itself.
        let cyclic = ManifestCacheFixture.yaml(tasks: 800)
            .replacingOccurrences(of: "  all:\n    deps: [", with: "  all:\n    deps: [all, ")
        scratch.write("Tasksfile.yaml", cyclic)
        #expect(throws: ProjectError.self) { try load() }
        #expect(!scratch.exists(".opsrun/manifest.cache"))
    }
}
