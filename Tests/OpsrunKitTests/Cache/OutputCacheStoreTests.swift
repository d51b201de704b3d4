import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif
@testable import OpsrunCache
@testable import OpsrunIncremental
@testable import OpsrunKit

/// The output cache's pieces (docs/manual/cache.md): the entry's encoding, keys, the local store, eviction,
/// and where the settings come from.
@Suite struct OutputCacheStoreTests {
    let blob = CacheEntry.Blob(hash: String(repeating: "ab", count: 32), size: 3)

    @Test func anEntryRoundTripsAsAnActionResult() throws {
        let entry = CacheEntry(
            files: [CacheEntry.File(path: "out/app", blob: blob, mode: 0o750)], standardOutput: .init(blob: blob),
            standardError: nil)
        #expect(CacheEntry(decoding: entry.encoded(inlining: false)) == entry)
        // `is_executable` too, for readers that know no `unix_mode`.
        let result = try Build_Bazel_Remote_Execution_V2_ActionResult(serializedBytes: entry.encoded(inlining: false))
        #expect(result.outputFiles[0].isExecutable && result.outputFiles[0].digest.sizeBytes == 3)
    }

    @Test func inlinedBytesAreKeptLocallyCheckedAndNeverSent() throws {
        let bytes = Array("abc".utf8)
        let inline = CacheEntry(
            files: [CacheEntry.File(path: "a", blob: .init(of: bytes), mode: 0o644, contents: bytes)],
            standardOutput: .init(blob: .init(of: bytes), contents: bytes))
        #expect(CacheEntry(decoding: inline.encoded(inlining: true)) == inline)
        let sent = try Build_Bazel_Remote_Execution_V2_ActionResult(serializedBytes: inline.encoded(inlining: false))
        #expect(sent.outputFiles[0].contents.isEmpty && sent.stdoutRaw.isEmpty)
        var lying = inline
        lying.files[0].contents = Array("xyz".utf8)
        #expect(CacheEntry(decoding: lying.encoded(inlining: true)) == nil)
    }

    @Test func garbageBadDigestsAndEmptyBlobsOfOtherBytesAreNoEntry() {
        #expect(CacheEntry(decoding: Array("<html>not found</html>".utf8)) == nil)
        let badDigest = CacheEntry(files: [CacheEntry.File(path: "a", blob: .init(hash: "../../etc", size: 1), mode: 0o644)])
        #expect(CacheEntry(decoding: badDigest.encoded(inlining: false)) == nil)
        let emptyButNot = CacheEntry(files: [CacheEntry.File(path: "a", blob: .init(hash: blob.hash, size: 0), mode: 0o644)])
        #expect(CacheEntry(decoding: emptyButNot.encoded(inlining: false)) == nil)
        let empty = CacheEntry(files: [CacheEntry.File(path: "a", blob: .init(of: []), mode: 0o644, contents: [])])
        #expect(CacheEntry(decoding: empty.encoded(inlining: false)) == empty)
    }

    @Test func aPlaceAllowsOnlyTheDeclaredOutputsInsideTheProject() {
        let place = OutputPlace(projectRoot: "/p", taskDirectory: "/p/web", outputs: ["dist", "out/*.o", "./bin/app"])
        for path in ["dist/a.js", "dist/x/y.map", "out/a.o", "bin/app"] {
            #expect(place.refusal(of: path) == nil, "\(path)")
        }
        #expect(place.refusal(of: "/etc/passwd") == "names '/etc/passwd', which is not a relative path")
        #expect(place.refusal(of: "../../x") == "names '../../x', which is outside the project")
        #expect(place.refusal(of: "../x") == "names '../x', which is not a plain relative path")
        #expect(place.refusal(of: "dist/../Tasksfile.yaml") == "names 'dist/../Tasksfile.yaml', which is not a plain relative path")
        #expect(place.refusal(of: "out/x/a.o") == "names 'out/x/a.o', which is not one of its outputs")
        #expect(place.refusal(of: "distinct") == "names 'distinct', which is not one of its outputs")
        #expect(place.refusal(of: "out/.hidden.o") == "names 'out/.hidden.o', which is not one of its outputs")
        #expect(place.isWhole(["dist/a.js", "bin/app"]) && !place.isWhole(["bin/app"]))
        #expect(place.directories(holding: ["dist/a.js", "bin/app"]) == ["dist"])
    }

    @Test func keysDependOnTheTaskDefinitionOutputsAndMachine() {
        let one = ContentDigest.of("one"), two = ContentDigest.of("two")
        let key = CacheKey(task: "t", definition: one, outputs: ["a"], platform: "Linux x86_64")
        #expect(key == CacheKey(task: "t", definition: one, outputs: ["a"], platform: "Linux x86_64"))
        #expect(key != CacheKey(task: "t", definition: two, outputs: ["a"], platform: "Linux x86_64"))
        #expect(key != CacheKey(task: "t", definition: one, outputs: ["a", "b"], platform: "Linux x86_64"))
        #expect(key != CacheKey(task: "t", definition: one, outputs: ["a"], platform: "Linux aarch64"))
        #expect(key != CacheKey(task: "web:t", definition: one, outputs: ["a"], platform: "Linux x86_64"))
        // A task with a depfile keys its candidate list, never an entry of the task without one.
        let listKey = CacheKey(task: "t", definition: one, outputs: ["a"], depfile: "a.d", platform: "Linux x86_64")
        #expect(key != listKey)
        #expect(listKey != CacheKey(task: "t", definition: one, outputs: ["a"], depfile: "b.d", platform: "Linux x86_64"))
        let input = FileDigest(path: "a.h", digest: one)
        #expect(CacheKey(listKey, discovered: [input]) != CacheKey(listKey, discovered: [FileDigest(path: "a.h", digest: two)]))
        #expect(CacheKey(listKey, discovered: [input]) != CacheKey(key, discovered: [input]))
        #expect(Hex.isSHA256(key.hex))
    }

    @Test func storeThenRestoreIntoAnotherDirectory() throws {
        let scratch = ScratchDirectory()
        // A restore writes into the task's directory, which is there.
        func place(_ directory: String, _ outputs: [String]) -> OutputPlace {
            mkdir(scratch.absolute(directory), 0o755)
            return OutputPlace(projectRoot: scratch.path, taskDirectory: scratch.absolute(directory), outputs: outputs)
        }
        scratch.write("a/out/x.bin", "xyz")
        chmod(scratch.absolute("a/out/x.bin"), 0o700)
        let cache = OutputCache(directory: scratch.absolute("cache"), sizeLimit: 1 << 30)
        let key = CacheKey(task: "t", definition: .of("task"), outputs: ["out/x.bin"])
        let hash = Hex.sha256(Array("xyz".utf8))
        #expect(cache.store(key, directory: scratch.absolute("a"), files: [("out/x.bin", hash)],
            standardOutput: Array("hi\n".utf8), standardError: []))
        let restored = try #require(cache.restore(key, into: place("b", ["out/x.bin"])).restored)
        #expect(restored.standardOutput == Array("hi\n".utf8) && restored.standardError.isEmpty)
        #expect(scratch.bytes("b/out/x.bin") == Array("xyz".utf8))
        var info = stat()
        stat(scratch.absolute("b/out/x.bin"), &info)
        #expect(info.st_mode & 0o7777 == 0o700)
        // An output the entry lacks is a miss; so is a file changed since it was hashed.
        #expect(cache.restore(key, into: place("c", ["out/x.bin", "out/y"])).restored == nil)
        scratch.write("a/out/z", "changed")
        #expect(!cache.store(CacheKey(task: "t", definition: .of("z"), outputs: ["out/z"]), directory: scratch.absolute("a"),
            files: [("out/z", Hex.sha256(Array("before".utf8)))], standardOutput: [], standardError: []))
    }

    @Test func evictionRemovesTheLeastRecentlyUsedFirst() throws {
        let scratch = ScratchDirectory()
        for (index, name) in ["old", "middle", "new"].enumerated() {
            scratch.write("cache/cas/" + name, String(repeating: "x", count: 8192))
            var times = [timespec(tv_sec: 1_000_000 + index * 1000, tv_nsec: 0), timespec(tv_sec: 1_000_000 + index * 1000, tv_nsec: 0)]
            utimensat(AT_FDCWD, scratch.absolute("cache/cas/" + name), &times, 0)
        }
        // Room for two of the three 8 KiB files.
        CacheEviction.trim(root: scratch.absolute("cache"), limit: 20 * 1024)
        #expect(!scratch.exists("cache/cas/old"))
        #expect(scratch.exists("cache/cas/middle") && scratch.exists("cache/cas/new"))
    }

    @Test func settingsComeFromOptionsThenEnvironment() {
        var invocation = Invocation()
        let home = ["HOME": "/home/u"]
        #expect(CacheSettings(invocation, environment: home, workingDirectory: "/w").directory == "/home/u/.cache/opsrun")
        #expect(CacheSettings(invocation, environment: home.merging(["XDG_CACHE_HOME": "/x"]) { $1 }, workingDirectory: "/w").directory == "/x/opsrun")
        #expect(CacheSettings(invocation, environment: home.merging(["OPSRUN_CACHE_DIR": "c"]) { $1 }, workingDirectory: "/w").directory == "/w/c")
        #expect(CacheSettings(invocation, environment: home.merging(["OPSRUN_NO_CACHE": "1"]) { $1 }, workingDirectory: "/w").directory == nil)
        invocation.cacheDirectory = "/opt/c"
        #expect(CacheSettings(invocation, environment: home, workingDirectory: "/w").directory == "/opt/c")
        invocation.noCache = true
        #expect(CacheSettings(invocation, environment: home, workingDirectory: "/w").directory == nil)
        #expect(CacheSettings.parseSize("5G") == 5 << 30 && CacheSettings.parseSize("500MiB") == 500 << 20)
        #expect(CacheSettings.parseSize("1024") == 1024 && CacheSettings.parseSize("2KB") == 2048)
        #expect(CacheSettings.parseSize("lots") == nil && CacheSettings.parseSize("0") == nil)
        #expect(CacheSettings(Invocation(), environment: [:], workingDirectory: "/w").sizeLimit == 5 << 30)
    }
}

extension OutputCache.Outcome {
    /// What was restored, if it was.
    var restored: OutputCache.Restored? {
        if case .restored(let restored) = self { return restored }
        return nil
    }
}
