@testable import OpsrunKit
import Testing
@testable import OpsrunIncremental

@Suite struct DeclaredOutputsTests {
    @Test func aSourceIsDeclaredByALiteralOrAGlobOutputOfAnyTaskWhateverItsDirectory() {
        let gen = IncrementalTaskSpec(name: "gen", commands: [], absoluteDirectory: "/p", outputs: ["gen/config.h", "./out//a.txt"])
        let sub = IncrementalTaskSpec(name: "sub", commands: [], absoluteDirectory: "/p/sub", outputs: ["*.o", "/abs/**"])
        let compile = IncrementalTaskSpec(name: "compile", commands: [], absoluteDirectory: "/p", sources: [])
        let declared = DeclaredOutputs(of: [gen, sub, compile])
        #expect(declared.contains(source: "gen/config.h", of: compile))
        #expect(declared.contains(source: "./gen/config.h", of: compile))
        #expect(declared.contains(source: "out/a.txt", of: compile))
        #expect(declared.contains(source: "sub/main.o", of: compile))
        #expect(declared.contains(source: "/abs/x/y", of: compile))
        #expect(!declared.contains(source: "sub/deeper/main.o", of: compile))
        #expect(!declared.contains(source: "gen/other.h", of: compile))
    }

    /// An included sub-project reads what the root generates as `../gen/config.h` (docs/manual/includes.md).
    @Test func aSourceReachedThroughDotDotIsTheOutputItNames() {
        let gen = IncrementalTaskSpec(name: "gen", commands: [], absoluteDirectory: "/p", outputs: ["gen/config.h"])
        let web = IncrementalTaskSpec(name: "web:build", commands: [], absoluteDirectory: "/p/web", outputs: ["../out/web.txt"])
        let declared = DeclaredOutputs(of: [gen, web])
        #expect(declared.contains(source: "../gen/config.h", of: web))
        #expect(declared.contains(source: "out/web.txt", of: gen))
        #expect(!declared.contains(source: "../../gen/config.h", of: web))
    }

    /// A literal output may be a directory, which stands for every file beneath it.
    @Test func aSourceBeneathALiteralOutputIsDeclared() {
        let gen = IncrementalTaskSpec(name: "gen", commands: [], absoluteDirectory: "/p", outputs: ["dist", "web/build/"])
        let use = IncrementalTaskSpec(name: "use", commands: [], absoluteDirectory: "/p/web", sources: [])
        let declared = DeclaredOutputs(of: [gen, use])
        #expect(declared.contains(source: "build/app.js", of: use))
        #expect(declared.contains(source: "../dist/sub/.env", of: use))
        #expect(!declared.contains(source: "../distant/a.txt", of: use))
        #expect(!declared.contains(source: "app.js", of: use))
    }

    @Test func aNearNameBesideAMissingPathIsSuggested() {
        let scratch = ScratchDirectory()
        scratch.write("inc/config.h", "")
        scratch.write("main.c", "")
        #expect(GlobPattern.nearestExisting(to: "inc/cofnig.h", in: scratch.path) == "inc/config.h")
        #expect(GlobPattern.nearestExisting(to: "mian.c", in: scratch.path) == "main.c")
        #expect(GlobPattern.nearestExisting(to: "inc/unrelated.txt", in: scratch.path) == nil)
        #expect(GlobPattern.nearestExisting(to: "nowhere/config.h", in: scratch.path) == nil)
    }
}
