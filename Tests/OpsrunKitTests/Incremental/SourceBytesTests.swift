import Testing
@testable import OpsrunIncremental

/// What a task never recorded weighs on the critical path (docs/manual/running.md): the bytes of the files
/// its declared sources name now, read as the up-to-date check reads sources.
@Suite struct SourceBytesTests {
    func task(_ sources: [String], in scratch: ScratchDirectory) -> IncrementalTaskSpec {
        IncrementalTaskSpec(name: "t", commands: ["true"], absoluteDirectory: scratch.path, sources: sources)
    }

    @Test func theSourcesSizesAddUpWhetherNamedMatchedOrBeneathADirectory() {
        let scratch = ScratchDirectory()
        scratch.write("lvm.c", String(repeating: "x", count: 1_000))
        scratch.write("src/a.c", "12345")
        scratch.write("src/b.h", "123")
        scratch.write("assets/.config", "1234567")
        scratch.write("assets/deep/logo.svg", "12")
        #expect(task(["lvm.c"], in: scratch).sourceBytes == 1_000)
        #expect(task(["src/*.c", "src/*.h"], in: scratch).sourceBytes == 8)
        // A directory stands for every file beneath it, hidden ones included.
        #expect(task(["assets"], in: scratch).sourceBytes == 9)
        #expect(task(["lvm.c", "missing.c"], in: scratch).sourceBytes == 1_000)
    }

    @Test func aTaskThatDeclaresNoSourcesOrWhoseSourcesAreNotThereHasNoSize() {
        let scratch = ScratchDirectory()
        scratch.write("empty.c", "")
        #expect(task([], in: scratch).sourceBytes == nil)
        #expect(task(["missing.c", "gen/*.c"], in: scratch).sourceBytes == nil)
        // An empty file is there: it reads nothing, and weighs nothing of its own.
        #expect(task(["empty.c"], in: scratch).sourceBytes == 0)
    }
}
