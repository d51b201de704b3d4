import Testing

@testable import OpsrunGraph
@testable import OpsrunPlan

/// The edges sources make (docs/manual/up-to-date.md): which writers a source reads, by path.
@Suite struct FileEdgesTests {
    static func prerequisites(_ yaml: String, of name: String) throws -> [String] {
        let graph = try TaskInstancesTests.expand(yaml).instances.graph
        return TaskInstancesTests.prerequisites(graph, name)
    }

    @Test func pathsAreComparedOnceNormalizedFromEachTasksDirectory() throws {
        #expect(try Self.prerequisites("""
            tasks:
              use:
                dir: sub
                sources: [../gen/./a.h, "../gen//b.h"]
                run: "true"
              a: { outputs: [gen/a.h], run: "true" }
              b: { dir: gen, outputs: [b.h], run: "true" }
              c: { outputs: [gen/c.h], run: "true" }
            """, of: "use") == ["a", "b"])
    }

    @Test func deepPathsSearchOnlyTheirOwnDirectories() throws {
        #expect(try Self.prerequisites("""
            tasks:
              use:
                sources: ["out/x/**/*.txt", out/y]
                run: "true"
              w1: { outputs: [out/x/1/a.txt], run: "true" }
              w2: { outputs: [out/x/a.txt], run: "true" }
              w3: { outputs: [out/x.txt], run: "true" }
              w4: { outputs: [out/y/z/deep.bin], run: "true" }
              w5: { outputs: [out/yy], run: "true" }
              w6: { outputs: [out], run: "true" }
            """, of: "use") == ["w6", "w1", "w2", "w4"])
    }

    /// The shortcut that skips the search when sources and outputs share no top directory reads
    /// bytes only: whatever it cannot judge that way (`./`, `..`, `${...}`, a wildcard first
    /// name) must still find the edge, and a name after a run of equal ones must count.
    @Test(arguments: ["./out/a.txt", "src/../out/a.txt", "${OUT}/a.txt", "o*/a.txt", "out/a.txt"])
    func noSpellingOfAnOutputHidesItsEdge(source: String) throws {
        #expect(try Self.prerequisites("""
            env: { OUT: out }
            tasks:
              r:
                sources: [src/1, src/2, src/3, "\(source)"]
                run: "true"
              w: { outputs: [out/a.txt], run: "true" }
              other: { sources: [src/4], outputs: [gen/b.txt], run: "true" }
            """, of: "r") == ["w"])
    }

    @Test func sourcesAndOutputsInDifferentTopDirectoriesMakeNoEdge() throws {
        #expect(try Self.prerequisites("""
            tasks:
              r: { sources: [src/1, src/2], outputs: [out/r], run: "true" }
              w: { sources: [src/3], outputs: [out/a.txt], run: "true" }
            """, of: "r") == [])
    }

    @Test func aDepsEntryAlreadyThereMakesNoSecondEdge() throws {
        #expect(try Self.prerequisites("""
            tasks:
              link:
                deps: [compile]
                sources: [a.o]
                run: "true"
              compile:
                each: { S: [a, b] }
                outputs: ["${S}.o"]
                run: "true"
            """, of: "link") == ["compile"])
    }

    @Test func keysAreRelativeInsideTheProjectAndAbsoluteOutside() {
        let keys = PathKeys(manifestDirectory: "/p")
        #expect(keys.key("a/b", in: "") == "a/b")
        #expect(keys.key("../x", in: "sub") == "x")
        #expect(keys.key("/p/x", in: "") == "x")
        #expect(keys.key("/px", in: "") == "/px")
        #expect(keys.key("../q", in: "") == "/q")
        #expect(keys.key("", in: "sub") == "sub")
        #expect(PathKeys.hasParentReference("a/../b") && PathKeys.hasParentReference(".."))
        #expect(!PathKeys.hasParentReference("a..b/..c") && !PathKeys.hasParentReference("./a"))
    }
}
