@testable import OpsrunKit
import Testing
@testable import OpsrunIncremental

@Suite struct GlobExpansionTests {
    /// src/{a.c,b.h,.f.c}, src/sub/c.c, src/sub/deep/d.c, src/.hidden/e.c, .git/x.c, .opsrun/y.c,
    /// top.c, and src/loop -> . (a symbolic link back to src).
    static func project() -> ScratchDirectory {
        let scratch = ScratchDirectory()
        for file in ["src/a.c", "src/b.h", "src/.f.c", "src/sub/c.c", "src/sub/deep/d.c", "src/.hidden/e.c",
                     ".git/x.c", ".opsrun/y.c", "top.c"] {
            scratch.write(file, file)
        }
        scratch.link("src/loop", to: ".")
        return scratch
    }

    func expand(_ pattern: String, in scratch: ScratchDirectory) -> [String] {
        GlobPattern(pattern).expand(in: scratch.path).paths
    }

    @Test func doubleStarWalksSubdirectoriesButNotHiddenOnesNorLinks() {
        let scratch = Self.project()
        #expect(expand("src/**/*.c", in: scratch) == ["src/a.c", "src/sub/c.c", "src/sub/deep/d.c"])
        #expect(expand("**/*.c", in: scratch) == ["src/a.c", "src/sub/c.c", "src/sub/deep/d.c", "top.c"])
        #expect(expand("src/**", in: scratch) == ["src/a.c", "src/b.h", "src/sub/c.c", "src/sub/deep/d.c"])
    }

    @Test func starMatchesFilesOnlyAndSkipsHiddenNames() {
        let scratch = Self.project()
        #expect(expand("src/*", in: scratch) == ["src/a.c", "src/b.h"])
        #expect(expand("*", in: scratch) == ["top.c"])
        #expect(expand("src/?.?", in: scratch) == ["src/a.c", "src/b.h"])
        #expect(expand("src/[!a].*", in: scratch) == ["src/b.h"])
    }

    @Test func writtenDotsReachHiddenFilesButNeverGitOrOpsrun() {
        let scratch = Self.project()
        #expect(expand("src/.*", in: scratch) == ["src/.f.c"])
        #expect(expand("src/.hidden/*.c", in: scratch) == ["src/.hidden/e.c"])
        #expect(expand(".*/*.c", in: scratch) == [])
    }

    @Test func aLinkNamedExplicitlyIsFollowedOnce() {
        let scratch = Self.project()
        #expect(expand("src/loop/*.c", in: scratch) == ["src/loop/a.c"])
        #expect(expand("src/*/a.c", in: scratch) == ["src/loop/a.c"])
        #expect(expand("src/*/*/c.c", in: scratch) == ["src/loop/sub/c.c"])
    }

    @Test func aPatternWithoutWildcardsNamesOnePathOrIsMissing() {
        let scratch = Self.project()
        #expect(GlobPattern("src/a.c").expand(in: scratch.path) == GlobExpansion(paths: ["src/a.c"]))
        #expect(GlobPattern("./src//a.c").expand(in: scratch.path) == GlobExpansion(paths: ["src/a.c"]))
        #expect(GlobPattern("src/none.c").expand(in: scratch.path) == GlobExpansion(paths: [], isMissing: true))
        #expect(GlobPattern("src").expand(in: scratch.path) == GlobExpansion(paths: ["src"]))
        // A wildcard that matches nothing is not "missing": there is simply nothing yet.
        #expect(GlobPattern("*.rs").expand(in: scratch.path) == GlobExpansion(paths: []))
    }

    @Test func absolutePatternsIgnoreTheBase() {
        let scratch = Self.project()
        let other = ScratchDirectory()
        #expect(GlobPattern(scratch.path + "/src/*.c").expand(in: other.path).paths == [scratch.path + "/src/a.c"])
    }

    @Test func resultsAreSortedByBytesWithoutDuplicates() {
        let scratch = ScratchDirectory()
        for name in ["é.c", "b.c", "B.c", "a.c", "a/x.c"] { scratch.write(name, name) }
        #expect(expand("*.c", in: scratch) == ["B.c", "a.c", "b.c", "é.c"])
        #expect(expand("**/*.c", in: scratch) == ["B.c", "a.c", "a/x.c", "b.c", "é.c"])
        let (paths, missing) = GlobPattern.expand(["a/*.c", "**/x.c", "gone.c", "a.c"], in: scratch.path)
        #expect(paths == ["a.c", "a/x.c"])
        #expect(missing == ["gone.c"])
    }

    @Test func aThousandLevelsDeepIsWalkedWithoutRecursion() {
        let scratch = ScratchDirectory()
        let deep = Array(repeating: "d", count: 1_000).joined(separator: "/")
        scratch.write(deep + "/bottom.txt", "x")
        #expect(expand("**/*.txt", in: scratch) == [deep + "/bottom.txt"])
    }

    @Test func tenThousandFilesInOneDirectory() {
        let scratch = ScratchDirectory()
        for index in 0..<10_000 { scratch.write("many/f\(index).c", "") }
        scratch.write("many/skip.h", "")
        let paths = expand("many/*.c", in: scratch)
        #expect(paths.count == 10_000)
        #expect(paths == paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(paths.first == "many/f0.c")
    }
}
