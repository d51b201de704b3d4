@testable import OpsrunKit
import Foundation
import Testing
@testable import OpsrunIncremental

/// Depfiles through the up-to-date bookkeeping (docs/manual/depfiles.md): the files a depfile lists are sources of
/// the task's next check, kept in its record.
@Suite struct DepfileRunTests {
    /// Three compiles of a small C project, each "compiling" by writing its object and its depfile.
    final class Project {
        let scratch = ScratchDirectory()
        /// The headers each source includes, as its depfile will list them.
        var includes = [
            "a": ["include/common.h", "include/a.h"],
            "b": ["include/common.h"],
            "c": ["include/c.h"],
        ]
        /// Written instead of a depfile, by name; `""`: no depfile at all.
        var depfileText: [String: String] = [:]
        /// Tasks whose command writes no depfile and leaves the one an earlier run wrote.
        var leavesOldDepfile: Set<String> = []
        /// Run while a task "runs", after its commands started.
        var whileRunning: (String) -> Void = { _ in }
        /// Warnings of the last run.
        var warnings: [String] = []

        init() {
            for name in ["a", "b", "c"] { scratch.write("src/\(name).c", "int \(name);") }
            for header in ["common", "a", "c"] { scratch.write("include/\(header).h", "// \(header)") }
        }

        func spec(_ name: String) -> IncrementalTaskSpec {
            IncrementalTaskSpec(
                name: "compile[\(name)]", commands: ["cc -MMD -c src/\(name).c -o build/\(name).o"],
                absoluteDirectory: scratch.path, sources: ["src/\(name).c"], outputs: ["build/\(name).o"],
                depfile: "build/\(name).d")
        }

        /// One run: each task's verdict as `--explain` would print it.
        @discardableResult
        func run(_ names: [String] = ["a", "b", "c"]) -> [String] {
            scratch.waitUntilFileTimesArePast()
            let run = IncrementalRun(stateDirectory: scratch.absolute(".opsrun"))
            var lines: [String] = []
            warnings = []
            for name in names {
                let check = run.check(spec(name))
                lines.append("\(check.task.name): \(check.verdict)")
                if check.verdict.isUpToDate { continue }
                #expect(run.willRun(check) == nil)
                whileRunning(name)
                scratch.write("build/\(name).o", "object of \(name)")
                switch depfileText[name] {
                case _ where leavesOldDepfile.contains(name): break
                case "": scratch.remove("build/\(name).d")
                case let text?: scratch.write("build/\(name).d", text)
                case nil:
                    let inputs = (["src/\(name).c"] + includes[name, default: []]).joined(separator: " \\\n  ")
                    scratch.write("build/\(name).d", "build/\(name).o: \(inputs)\n")
                }
                warnings += run.succeeded(check).map(\.description)
            }
            #expect(run.finish() == nil)
            return lines
        }
    }

    @Test func editingAHeaderRerunsExactlyTheFilesThatIncludeIt() {
        let project = Project()
        project.run()
        #expect(project.warnings == [])
        #expect(project.run() == ["compile[a]: up to date", "compile[b]: up to date", "compile[c]: up to date"])
        project.scratch.write("include/common.h", "// common, edited")
        #expect(project.run() == [
            "compile[a]: source include/common.h changed", "compile[b]: source include/common.h changed",
            "compile[c]: up to date",
        ])
        project.scratch.write("include/c.h", "// c, edited")
        #expect(project.run() == ["compile[a]: up to date", "compile[b]: up to date", "compile[c]: source include/c.h changed"])
    }

    @Test func aNoOpRunDoesNotReadTheDepfiles() {
        let project = Project()
        project.run()
        // The record holds what they listed: they may even be deleted.
        for name in ["a", "b", "c"] { project.scratch.remove("build/\(name).d") }
        #expect(project.run() == ["compile[a]: up to date", "compile[b]: up to date", "compile[c]: up to date"])
        project.scratch.write("include/a.h", "// a, edited")
        #expect(project.run(["a"]) == ["compile[a]: source include/a.h changed"])
    }

    @Test func aHeaderNoLongerIncludedIsForgottenAndANewOneLearnt() {
        let project = Project()
        project.run()
        project.scratch.write("src/c.c", "#include \"common.h\"")
        project.includes["c"] = ["include/common.h"]
        #expect(project.run(["c"]) == ["compile[c]: source src/c.c changed"])
        project.scratch.write("include/c.h", "// c, edited: not included any more")
        project.scratch.write("include/common.h", "// common, edited")
        #expect(project.run(["c"]) == ["compile[c]: source include/common.h changed"])
        #expect(project.run(["c"]) == ["compile[c]: up to date"])
    }

    @Test func aDeletedHeaderMakesTheTaskRun() {
        let project = Project()
        project.run()
        project.scratch.remove("include/a.h")
        #expect(project.run(["a"]) == ["compile[a]: source include/a.h removed"])
    }

    @Test func aTaskThatSucceedsWithoutWritingItsDepfileIsWarnedAndRunsAgain() {
        let project = Project()
        project.depfileText["a"] = ""
        project.run(["a"])
        #expect(project.warnings == ["warning: task 'compile[a]' succeeded without writing its depfile 'build/a.d'; it runs again next time"])
        #expect(project.run(["a"]) == ["compile[a]: its last run did not write its depfile build/a.d"])
        project.depfileText["a"] = nil
        #expect(project.run(["a"]) == ["compile[a]: its last run did not write its depfile build/a.d"])
        #expect(project.warnings == [])
        #expect(project.run(["a"]) == ["compile[a]: up to date"])
    }

    @Test func aDepfileLeftByAnEarlierRunIsNotTrusted() {
        let project = Project()
        project.run(["a"])
        // The command stops writing its depfile, and the source now includes one more header.
        project.leavesOldDepfile = ["a"]
        project.scratch.write("src/a.c", "#include \"c.h\"")
        #expect(project.run(["a"]) == ["compile[a]: source src/a.c changed"])
        #expect(project.warnings == [
            "warning: task 'compile[a]' succeeded without writing its depfile 'build/a.d' (the file there is older than the task's start); it runs again next time",
        ])
        // Never "up to date" on the old list, which does not name c.h.
        project.scratch.write("include/c.h", "// c, edited")
        #expect(project.run(["a"]) == ["compile[a]: its last run did not write its depfile build/a.d"])
    }

    @Test func aMalformedDepfileIsWarnedAndTheTaskRunsAgain() {
        let project = Project()
        project.depfileText["a"] = "this is not a depfile\n"
        project.run(["a"])
        #expect(project.warnings == [
            "warning: task 'compile[a]': depfile 'build/a.d' is malformed: expected ':' in depfile; it runs again next time",
        ])
        // Never a false "up to date", whatever else is unchanged.
        #expect(project.run(["a"]) == ["compile[a]: its depfile build/a.d could not be read after its last run"])
    }

    @Test func aHeaderEditedWhileItsCompileRanMakesItRunAgain() {
        let project = Project()
        // Included for the first time, so not hashed before the command: edited while it "ran".
        project.whileRunning = { name in
            if name == "c" { project.scratch.write("include/c.h", "// c, edited during the compile") }
        }
        project.run(["c"])
        project.whileRunning = { _ in }
        #expect(project.run(["c"]) == [
            "compile[c]: source include/c.h was written while its last run ran, so its content cannot be trusted",
        ])
        #expect(project.run(["c"]) == ["compile[c]: up to date"])
    }

    @Test func addingADepfileToATaskWithARecordMakesItRun() {
        let project = Project()
        let plain = IncrementalTaskSpec(
            name: "compile[a]", commands: ["cc -MMD -c src/a.c -o build/a.o"], absoluteDirectory: project.scratch.path,
            sources: ["src/a.c"], outputs: ["build/a.o"])
        let verdict = IncrementalRunTests.runAlone(
            plain, stateDirectory: project.scratch.absolute(".opsrun"), output: "build/a.o", in: project.scratch)
        #expect(verdict == "no record of a previous run")
        #expect(project.run(["a"]) == ["compile[a]: its depfile build/a.d was never read"])
        #expect(project.run(["a"]) == ["compile[a]: up to date"])
    }

    @Test func aCheckSaysWhatTheDepfileListedLastTime() {
        let project = Project()
        project.run(["a"])
        let run = IncrementalRun(stateDirectory: project.scratch.absolute(".opsrun"))
        #expect(run.check(project.spec("a")).depfileInputs == ["include/a.h", "include/common.h", "src/a.c"])
        #expect(run.check(project.spec("b")).depfileInputs == nil)
        #expect(run.finish() == nil)
    }

    /// An `each` instance's name holds a `/` (`compile[src/a.c]`): as a record key, bare or behind
    /// another manifest's file name (`c.yaml/compile[src/a.c]`), it keeps its depfile part, and the
    /// two manifests' records of one instance stay apart.
    @Test func instanceNamesWithASlashKeepTheirDepfileInputs() {
        let project = Project()
        var spec = project.spec("a")
        spec.name = "compile[src/a.c]"
        let manifests = [StateRecordNames.bare, StateRecordNames(manifestPath: project.scratch.absolute("c.yaml"))]
        func run(_ names: StateRecordNames) -> (verdict: String, inputs: [String]?) {
            project.scratch.waitUntilFileTimesArePast()
            let run = IncrementalRun(stateDirectory: project.scratch.absolute(".opsrun"), recordNames: names)
            let check = run.check(spec)
            if !check.verdict.isUpToDate {
                #expect(run.willRun(check) == nil)
                project.scratch.write("build/a.o", "object")
                project.scratch.write("build/a.d", "build/a.o: src/a.c include/a.h\n")
                #expect(run.succeeded(check).isEmpty)
            }
            #expect(run.finish() == nil)
            return ("\(check.verdict)", check.depfileInputs)
        }
        for names in manifests {
            #expect(run(names).verdict == "no record of a previous run")
        }
        for names in manifests {
            #expect(run(names) == ("up to date", ["include/a.h", "src/a.c"]))
        }
        project.scratch.write("include/a.h", "// a, edited")
        for names in manifests {
            #expect(run(names).verdict == "source include/a.h changed")
        }
    }

    @Test func aHeaderAPrerequisiteGeneratedJustBeforeIsTrusted() {
        let project = Project()
        let gen = IncrementalTaskSpec(
            name: "gen", commands: ["./gen > include/gen.h"], absoluteDirectory: project.scratch.path,
            outputs: ["include/gen.h"])
        var compile = project.spec("a")
        compile.prerequisites = ["gen"]
        project.includes["a"] = ["include/gen.h"]
        func run() -> [String] {
            let run = IncrementalRun(stateDirectory: project.scratch.absolute(".opsrun"))
            // As if every file had been written in the clock tick the compile starts in.
            run.startClock = { Int64.min }
            var lines: [String] = []
            for spec in [gen, compile] {
                let check = run.check(spec)
                lines.append("\(spec.name): \(check.verdict)")
                if check.verdict.isUpToDate { continue }
                #expect(run.willRun(check) == nil)
                if spec.name == "gen" { project.scratch.write("include/gen.h", "#define GENERATED 1") }
                if spec.name == "compile[a]" {
                    project.scratch.write("build/a.o", "object")
                    project.scratch.write("build/a.d", "build/a.o: src/a.c include/gen.h\n")
                }
                #expect(run.succeeded(check).isEmpty)
            }
            #expect(run.finish() == nil)
            return lines
        }
        #expect(run() == ["gen: output include/gen.h missing", "compile[a]: no record of a previous run"])
        #expect(run() == ["gen: up to date", "compile[a]: up to date"])
    }
}

extension ScratchDirectory {
    /// Waits (at most a second) until the kernel's coarse clock, which stamps file times, has
    /// passed the newest file's: a task started now sees every file here as older than itself.
    func waitUntilFileTimesArePast() {
        var newest: Int64 = 0
        let files = FileManager.default.enumerator(atPath: path)
        while let relative = files?.nextObject() as? String {
            var raw = stat()
            guard stat(absolute(relative), &raw) == 0 else { continue }
            newest = max(newest, Int64(raw.st_ctim.tv_sec) * 1_000_000_000 + Int64(raw.st_ctim.tv_nsec))
        }
        let deadline = FileSystem.coarseRealtimeNanoseconds() + 1_000_000_000
        while FileSystem.coarseRealtimeNanoseconds() <= newest, FileSystem.coarseRealtimeNanoseconds() < deadline {
            sched_yield()
        }
    }
}
