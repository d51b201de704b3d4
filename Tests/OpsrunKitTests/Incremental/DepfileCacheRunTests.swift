import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif
@testable import OpsrunIncremental

/// What the output cache needs of the bookkeeping for a depfile task (docs/cache.md, "Depfile
/// tasks"): the inputs its depfile listed with their content, whether a candidate's inputs have
/// that content now (reading nothing but regular files), and a restore recorded with them.
@Suite struct DepfileCacheRunTests {
    let scratch = ScratchDirectory()

    init() {
        scratch.write("src/a.c", "int a;")
        scratch.write("include/a.h", "// a")
    }

    var spec: IncrementalTaskSpec {
        IncrementalTaskSpec(
            name: "compile[a]", commands: ["cc -MMD -c src/a.c -o build/a.o"], absoluteDirectory: scratch.path,
            sources: ["src/a.c"], outputs: ["build/a.o"], depfile: "build/a.d")
    }

    /// Runs the compile once, its depfile listing `listed`; returns what the cache would store.
    func compile(listing listed: [String]) -> CacheableSuccess {
        scratch.waitUntilFileTimesArePast()
        let run = IncrementalRun(stateDirectory: scratch.absolute(".opsrun"))
        let check = run.check(spec)
        #expect(run.willRun(check) == nil)
        scratch.write("build/a.o", "object")
        scratch.write("build/a.d", "build/a.o: " + listed.joined(separator: " ") + "\n")
        let success = run.succeededForCache(check)
        #expect(run.finish() == nil)
        return success
    }

    @Test func aSuccessGivesTheListedInputsWithTheirContentProjectPathsRelative() {
        let success = compile(listing: [scratch.absolute("include/a.h"), "src/a.c"])
        #expect(success.outputs == [FileDigest(path: "build/a.o", digest: .of("object"))])
        #expect(success.discovered == [
            FileDigest(path: "include/a.h", digest: .of("// a")), FileDigest(path: "src/a.c", digest: .of("int a;")),
        ])
        // A listed file that is not there: nothing to match, nothing stored.
        #expect(compile(listing: ["src/a.c", "include/gone.h"]).discovered == nil)
    }

    @Test func onlyRegularFilesWithTheRecordedContentMatch() throws {
        let run = IncrementalRun(stateDirectory: scratch.absolute(".opsrun"))
        let check = run.check(spec)
        let header = FileDigest(path: "include/a.h", digest: .of("// a"))
        #expect(run.hasContent([header], for: check))
        #expect(!run.hasContent([FileDigest(path: "include/a.h", digest: .of("// b"))], for: check))
        #expect(mkfifo(scratch.absolute("include/fifo.h"), 0o644) == 0)
        for path in ["include/fifo.h", "/dev/zero", "include", "include/gone.h"] {
            for digest in [ContentDigest.of(""), .directory, .notAFile] {
                #expect(!run.hasContent([header, FileDigest(path: path, digest: digest)], for: check), "\(path)")
            }
        }
        // A file larger than a compile reads is no match, and is not read (adversarial probe:
        // a list naming a large file had it read on every lookup).
        let large = scratch.absolute("include/large.h")
        #expect(FileManager.default.createFile(atPath: large, contents: nil))
        #expect(truncate(large, off_t(IncrementalRun.largestCandidateInput + 1)) == 0)
        let reads = run.hasher.contentReads
        #expect(!run.hasContent([FileDigest(path: "include/large.h", digest: .of(""))], for: check))
        #expect(run.hasher.contentReads == reads)
        #expect(run.finish() == nil)
    }

    /// Restored with a candidate's inputs, the task is up to date until one of them changes.
    @Test func aRestoreIsRecordedWithTheCandidatesInputs() {
        let inputs = [FileDigest(path: "include/a.h", digest: .of("// a")), FileDigest(path: "src/a.c", digest: .of("int a;"))]
        scratch.write("build/a.o", "object")
        scratch.waitUntilFileTimesArePast()
        let run = IncrementalRun(stateDirectory: scratch.absolute(".opsrun"))
        let check = run.check(spec)
        // As a restore does: the candidate's inputs are checked first (and so hashed).
        #expect(run.hasContent(inputs, for: check))
        #expect(run.restored(check, discovered: inputs) == [])
        #expect(run.finish() == nil)
        let again = IncrementalRun(stateDirectory: scratch.absolute(".opsrun"))
        #expect(again.check(spec).verdict == .upToDate(.unchanged))
        #expect(again.finish() == nil)
        scratch.write("include/a.h", "// a, edited")
        let edited = IncrementalRun(stateDirectory: scratch.absolute(".opsrun"))
        #expect(edited.check(spec).verdict == .mustRun(.sourceChanged("include/a.h")))
        #expect(edited.finish() == nil)
    }
}
