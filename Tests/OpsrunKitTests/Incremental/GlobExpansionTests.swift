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

    @Test func doubleStarWalksSubdirectoriesButNotHiddenOnesNorALinkBackUp() {
        let scratch = Self.project()
        #expect(expand("src/**/*.c", in: scratch) == ["src/a.c", "src/sub/c.c", "src/sub/deep/d.c"])
        #expect(expand("**/*.c", in: scratch) == ["src/a.c", "src/sub/c.c", "src/sub/deep/d.c", "top.c"])
        #expect(expand("src/**", in: scratch) == ["src/a.c", "src/b.h", "src/sub/c.c", "src/sub/deep/d.c"])
    }

    /// What a directory named in `sources` or `outputs` stands for: hidden names included, the
    /// link back up walked once, `.git` and `.opsrun` never.
    @Test func everyFileBeneathADirectoryIncludesHiddenOnes() {
        let scratch = Self.project()
        #expect(GlobPattern.everyFile(beneath: "src").expand(in: scratch.path).paths == [
            "src/.f.c", "src/.hidden/e.c", "src/a.c", "src/b.h", "src/sub/c.c", "src/sub/deep/d.c",
        ])
        #expect(GlobPattern.everyFile(beneath: ".").expand(in: scratch.path).paths.filter { $0.contains(".git") || $0.contains(".opsrun") } == [])
        #expect(GlobPattern.everyFile(beneath: "src").matches("src/.hidden/e.c"))
        #expect(!GlobPattern("src/**").matches("src/.hidden/e.c"))
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

    /// As the shell and Python's glob do: `src/shared -> ../shared` puts shared's files under src.
    @Test func doubleStarFollowsALinkToADirectory() {
        let scratch = ScratchDirectory()
        scratch.write("src/x.c", "")
        scratch.write("shared/y.c", "")
        scratch.write("shared/deep/z.c", "")
        scratch.link("src/shared", to: "../shared")
        #expect(expand("src/**/*.c", in: scratch) == ["src/shared/deep/z.c", "src/shared/y.c", "src/x.c"])
        #expect(expand("src/**", in: scratch) == ["src/shared/deep/z.c", "src/shared/y.c", "src/x.c"])
        // Reachable without the link, a directory keeps its own path and is walked once.
        #expect(expand("**/*.c", in: scratch) == ["shared/deep/z.c", "shared/y.c", "src/x.c"])
    }

    /// Several links to one directory: the smallest path walks it, whatever order the directory
    /// lists them in.
    @Test func severalLinksToOneDirectoryWalkItOnce() {
        let scratch = ScratchDirectory()
        scratch.write("lib/a.c", "")
        scratch.makeDirectory("src")
        for name in ["src/z", "src/m", "src/b"] { scratch.link(name, to: "../lib") }
        #expect(expand("src/**/*.c", in: scratch) == ["src/b/a.c"])
    }

    /// Links up the tree and across it end where they close, and links that fan out do not
    /// multiply the walk: 20 levels of two links each would be a million paths.
    @Test func linkLoopsAndFansEndWithoutHangingOrExploding() {
        let scratch = ScratchDirectory()
        scratch.write("a/x.c", "")
        scratch.write("b/y.c", "")
        scratch.link("a/up", to: "..")
        scratch.link("a/to-b", to: "../b")
        scratch.link("b/to-a", to: "../a")
        // a/up/b is b again, walked already through a/to-b; a/up/a is a itself.
        #expect(expand("a/**/*.c", in: scratch) == ["a/to-b/y.c", "a/x.c"])
        for level in 0..<20 {
            scratch.write("fan/\(level)/f.c", "")
            scratch.link("fan/\(level)/l", to: "../\(level + 1)")
            scratch.link("fan/\(level)/r", to: "../\(level + 1)")
        }
        #expect(expand("fan/0/**/*.c", in: scratch).count == 20)
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
