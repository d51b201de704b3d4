@testable import OpsrunKit
import Foundation
import Testing
@testable import OpsrunIncremental
@testable import OpsrunPlan

/// Runs as the driver will: tasks checked in dependency order when they become ready; those that
/// must run are "run" by a closure that writes their outputs, then recorded.
@Suite struct IncrementalRunTests {
    final class Project {
        let scratch = ScratchDirectory()
        /// What each task's "command" writes to its outputs; change it to make a task write other bytes.
        var objectContent = "object 1"
        var specs: [IncrementalTaskSpec] = []
        /// Check as a run does: each task by its index, with its prerequisites' indices (rather
        /// than by name, as a task checked on its own is).
        var checksByIndex = false

        init() {
            scratch.write("src/a.c", "int a;")
            scratch.write("src/b.c", "int b;")
            scratch.write("link.ld", "SECTIONS")
            specs = [
                spec("compile", sources: ["src/*.c"], outputs: ["build/main.o"]),
                spec("link", sources: ["link.ld"], outputs: ["build/app"], prerequisites: ["compile"]),
            ]
        }

        func spec(
            _ name: String, commands: [String]? = nil, sources: [String] = [], outputs: [String] = [],
            prerequisites: [String] = []
        ) -> IncrementalTaskSpec {
            IncrementalTaskSpec(
                name: name, commands: commands ?? ["make \(name)"], environment: [EnvironmentVariable("CFLAGS", "-O2")],
                absoluteDirectory: scratch.path, sources: sources, outputs: outputs, prerequisites: prerequisites)
        }

        var stateDirectory: String { scratch.absolute(".opsrun") }

        /// One run: each task's verdict as `--explain` would print it.
        @discardableResult
        func run(force: Bool = false, failing: Set<String> = [], dryRun: Bool = false) -> [String] {
            let run = checksByIndex
                ? IncrementalRun(stateDirectory: stateDirectory, force: force, tasks: specs)
                : IncrementalRun(stateDirectory: stateDirectory, force: force)
            var lines: [String] = []
            for (index, spec) in specs.enumerated() {
                let prerequisites = spec.prerequisites.map { name in specs.firstIndex { $0.name == name }! }
                let check = checksByIndex ? run.check(spec, index: index, prerequisiteIndices: prerequisites) : run.check(spec)
                lines.append("\(spec.name): \(check.verdict)")
                if check.verdict.isUpToDate || dryRun { continue }
                #expect(run.willRun(check) == nil)
                for output in spec.outputs {
                    scratch.write(output, spec.name == "compile" ? objectContent : "built from \(objectContent)")
                }
                if failing.contains(spec.name) {
                    run.failed(check)
                } else {
                    #expect(run.succeeded(check).isEmpty)
                }
            }
            #expect(run.finish() == nil)
            return lines
        }
    }

    @Test func aSecondRunDoesNothing() {
        let project = Project()
        #expect(project.run() == ["compile: no record of a previous run", "link: no record of a previous run"])
        #expect(project.run() == ["compile: up to date", "link: up to date"])
        #expect(project.run() == ["compile: up to date", "link: up to date"])
    }

    @Test func anEditedSourceRerunsItsTaskAndIdenticalOutputsStopThere() {
        let project = Project()
        project.run()
        project.scratch.write("src/a.c", "int a; // comment")
        #expect(project.run() == ["compile: source src/a.c changed", "link: up to date"])
        #expect(project.run() == ["compile: up to date", "link: up to date"])
    }

    @Test func differentOutputsRerunTheDependents() {
        let project = Project()
        project.run()
        project.scratch.write("src/b.c", "int b = 2;")
        project.objectContent = "object 2"
        #expect(project.run() == ["compile: source src/b.c changed", "link: prerequisite compile wrote different outputs"])
        #expect(project.run() == ["compile: up to date", "link: up to date"])
    }

    @Test func addedAndRemovedSources() {
        let project = Project()
        project.run()
        project.scratch.write("src/c.c", "int c;")
        #expect(project.run().first == "compile: source src/c.c added")
        project.scratch.remove("src/a.c")
        #expect(project.run().first == "compile: source src/a.c removed")
    }

    @Test func aDeletedOrEditedOutputIsRebuilt() {
        let project = Project()
        project.run()
        project.scratch.remove("build/main.o")
        #expect(project.run() == ["compile: output build/main.o missing", "link: up to date"])
        project.scratch.write("build/app", "edited by hand")
        #expect(project.run() == ["compile: up to date", "link: output build/app changed since its last run"])
    }

    /// One run of `spec` alone, "running" it by writing `output` (relative to the scratch root).
    static func runAlone(_ spec: IncrementalTaskSpec, stateDirectory: String, output: String, in scratch: ScratchDirectory) -> String {
        let run = IncrementalRun(stateDirectory: stateDirectory)
        let check = run.check(spec)
        if !check.verdict.isUpToDate {
            #expect(run.willRun(check) == nil)
            scratch.write(output, "object")
            #expect(run.succeeded(check).isEmpty)
        }
        #expect(run.finish() == nil)
        return check.verdict.description
    }

    @Test func filesOutsideTheManifestDirectoryAreSeenAsTheyAreNow() {
        // Files of tasks in the manifest's directory are reached from a descriptor of it; those of a
        // task in a subdirectory, or named absolutely, by their whole path, even when the
        // subdirectory is replaced by another between runs.
        let scratch = ScratchDirectory()
        scratch.write("sub/x.c", "int x;")
        scratch.write("elsewhere.c", "int e;")
        let spec = IncrementalTaskSpec(
            name: "sub", commands: ["cc x.c"], directory: "sub", absoluteDirectory: scratch.absolute("sub"),
            sources: ["x.c", scratch.absolute("elsewhere.c")], outputs: ["x.o"])
        func run() -> String { Self.runAlone(spec, stateDirectory: scratch.absolute(".opsrun"), output: "sub/x.o", in: scratch) }
        #expect(run() == "no record of a previous run")
        #expect(run() == "up to date")
        scratch.write("elsewhere.c", "int e = 1;")
        #expect(run() == "source \(scratch.absolute("elsewhere.c")) changed")
        try! FileManager.default.moveItem(atPath: scratch.absolute("sub"), toPath: scratch.absolute("old"))
        scratch.write("sub/x.c", "int x = 2;")
        scratch.write("sub/x.o", "object")
        #expect(run() == "source x.c changed")
        #expect(run() == "up to date")
    }

    /// `count` tasks `tN` compiling `src/tN.c` into `out/tN`, with their sources written.
    static func compileTasks(_ count: Int, in scratch: ScratchDirectory) -> [IncrementalTaskSpec] {
        for index in 0..<count { scratch.write("src/t\(index).c", "int t\(index);") }
        return (0..<count).map { index in
            IncrementalTaskSpec(
                name: "t\(index)", commands: ["cc \(index)"], absoluteDirectory: scratch.path,
                sources: ["src/t\(index).c"], outputs: ["out/t\(index)"])
        }
    }

    @Test func statsTakenUpFrontAreDroppedOnceACommandStarts() {
        let scratch = ScratchDirectory()
        var specs = Self.compileTasks(StatPrefetch.minimumFileCount, in: scratch)
        let state = scratch.absolute(".opsrun")
        for (index, spec) in specs.enumerated() {
            #expect(Self.runAlone(spec, stateDirectory: state, output: "out/t\(index)", in: scratch) == "no record of a previous run")
        }

        Self.trustFiles(of: specs, stateDirectory: state)
        specs[2].commands = ["cc -O2 2"]
        let run = IncrementalRun(stateDirectory: state, force: false, tasks: specs, store: { Self.prefetchingStore(state) })
        #expect(run.check(specs[0], index: 0).verdict == .upToDate(.unchanged))
        #expect(run.store.prefetchedStatus(projectKey: "src/t1.c") != nil, "taken with the first task's")
        scratch.remove("src/t1.c")
        let changed = run.check(specs[2], index: 2)
        #expect(changed.verdict == .mustRun(.commandChanged))
        #expect(run.willRun(changed) == nil)
        // The prefetched stat still shows src/t1.c; once a command started, the check looks again.
        #expect(run.check(specs[1], index: 1).verdict == .mustRun(.sourceRemoved("src/t1.c")))
        #expect(run.check(specs[3], index: 3).verdict == .upToDate(.unchanged))
        run.failed(changed)
        #expect(run.finish() == nil)
    }

    /// A task in a subdirectory, and a source outside the project (named absolutely), are looked
    /// up in the state by other keys than a path relative to the manifest: their prefetched stats
    /// are found all the same, and an edit is seen.
    @Test func prefetchedStatsServeOtherDirectoriesAndAbsolutePaths() {
        let scratch = ScratchDirectory()
        let outside = ScratchDirectory()
        let state = scratch.absolute(".opsrun")
        let specs = Self.compileTasks(StatPrefetch.minimumFileCount / 2, in: scratch)
        scratch.write("sub/x.c", "int x;")
        outside.write("shared.c", "int shared;")
        let sub = IncrementalTaskSpec(
            name: "sub", commands: ["cc x.c"], directory: "sub", absoluteDirectory: scratch.absolute("sub"),
            sources: ["x.c", outside.absolute("shared.c")], outputs: ["x.o"])
        Self.runEvery(specs, stateDirectory: state, in: scratch)
        #expect(Self.runAlone(sub, stateDirectory: state, output: "sub/x.o", in: scratch) == "no record of a previous run")
        Self.trustFiles(of: specs + [sub], stateDirectory: state)

        func check(_ expected: UpToDateVerdict, _ comment: Comment) {
            let run = IncrementalRun(stateDirectory: state, force: false, tasks: specs + [sub], store: { Self.prefetchingStore(state) })
            // Each file's own stat, found by its key.
            for path in [scratch.absolute("sub/x.c"), outside.absolute("shared.c"), scratch.absolute("src/t3.c")] {
                #expect(run.store.prefetchedStatus(at: path) == .some(FileSystem.status(path)), "\(path)")
            }
            #expect(run.check(sub, index: specs.count).verdict == expected, comment)
            #expect(run.finish() == nil)
        }
        check(.upToDate(.unchanged), "stats prefetched by their keys, none changed")
        outside.write("shared.c", "int shared = 1;")
        check(.mustRun(.sourceChanged(outside.absolute("shared.c"))), "the edit outside the project")
    }

    /// A clean build's outputs are too new to trust when it records them; the next run records
    /// their stat entries after the snapshot, where they stay while the events are few. Their
    /// stats are prefetched all the same, and an edit among them is seen.
    @Test func statsRecordedAfterTheSnapshotArePrefetchedToo() {
        let scratch = ScratchDirectory()
        let specs = Self.compileTasks(StatPrefetch.minimumFileCount, in: scratch)
        let state = scratch.absolute(".opsrun")
        Self.runEvery(specs, stateDirectory: state, in: scratch)
        Self.trustFiles(of: specs.map { spec in var sources = spec; sources.outputs = []; return sources }, stateDirectory: state)
        Self.trustFiles(
            of: specs.map { spec in var outputs = spec; outputs.sources = []; return outputs }, stateDirectory: state,
            compacting: false)
        let outputs = specs.map { scratch.absolute($0.outputs[0]) }

        scratch.write("out/t9", "another object")
        let run = IncrementalRun(stateDirectory: state, force: false, tasks: specs, store: { Self.prefetchingStore(state) })
        #expect(run.store.prefetchedStatus(projectKey: "out/t3") == .some(FileSystem.status(outputs[3])))
        #expect(run.store.prefetchedStatus(projectKey: "src/t3.c") == .some(FileSystem.status(scratch.absolute("src/t3.c"))))
        let ran = specs.indices.filter { !run.check(specs[$0], index: $0).verdict.isUpToDate }
        #expect(ran == [9])
        #expect(run.finish() == nil)
    }

    /// One run of `compileTasks`' tasks in which each runs, writing `out/t<index>`, and is recorded.
    static func runEvery(_ specs: [IncrementalTaskSpec], stateDirectory: String, in scratch: ScratchDirectory) {
        let run = IncrementalRun(stateDirectory: stateDirectory, force: false, tasks: specs)
        for (index, spec) in specs.enumerated() {
            let check = run.check(spec, index: index)
            #expect(run.willRun(check) == nil)
            scratch.write("out/t\(index)", "object \(index)")
            #expect(run.succeeded(check).isEmpty)
        }
        #expect(run.finish() == nil)
    }

    /// A state that stats the files it knows (those of its snapshot) on other threads from the start.
    static func prefetchingStore(_ directory: String) -> StateStore {
        let store = StateStore(directory: directory, creating: true)
        store.prefetchStats()
        return store
    }

    /// Records the tasks' files in the state's stat cache as trusted, in its snapshot (without
    /// `compacting`: as events after it), as a run long after they were written would (a test
    /// cannot wait out the racy window).
    static func trustFiles(of specs: [IncrementalTaskSpec], stateDirectory: String, compacting: Bool = true) {
        let store = StateStore(directory: stateDirectory, creating: true)
        let hasher = FileHasher()
        var entries: [(path: String, entry: StatCacheEntry)] = []
        for spec in specs {
            for path in spec.outputs + spec.sources {
                let absolute = FileSystem.join(spec.absoluteDirectory, path)
                guard let status = FileSystem.status(absolute), let digest = hasher.digest(ofFileAt: absolute) else { continue }
                entries.append((absolute, StatCacheEntry(status: status, digest: digest, isTrusted: true)))
            }
        }
        #expect(throws: Never.self) {
            try store.recordStatEntries(entries)
            if compacting { try store.compact() }
        }
        #expect(store.close() == nil)
    }

    /// Several chunks of prefetched stats, consumed while workers are still taking them: each file
    /// gets its own stat, so exactly the edited task runs.
    @Test func prefetchedStatsOverManyChunksBelongToTheirOwnFiles() {
        let scratch = ScratchDirectory()
        let count = 3 * StatPrefetch.filesPerChunk / 2 + 17
        let specs = Self.compileTasks(count, in: scratch)
        let state = scratch.absolute(".opsrun")
        Self.runEvery(specs, stateDirectory: state, in: scratch)
        Self.trustFiles(of: specs, stateDirectory: state)

        let edited = count - 40
        scratch.write("src/t\(edited).c", "int changed;")
        scratch.remove("out/t7")
        let second = IncrementalRun(stateDirectory: state, force: false, tasks: specs, store: { Self.prefetchingStore(state) })
        #expect(second.store.prefetchedStatus(projectKey: "src/t\(count - 1).c") != nil, "the last chunk's too")
        var verdicts: [Int: UpToDateVerdict] = [:]
        for (index, spec) in specs.enumerated() {
            let verdict = second.check(spec, index: index).verdict
            if !verdict.isUpToDate { verdicts[index] = verdict }
        }
        #expect(verdicts == [7: .mustRun(.outputMissing("out/t7")), edited: .mustRun(.sourceChanged("src/t\(edited).c"))])
        #expect(second.finish() == nil)
    }

    @Test func aStateDirectoryNotNamedOpsrunStillWorks() {
        let scratch = ScratchDirectory()
        scratch.write("a.c", "int a;")
        let spec = IncrementalTaskSpec(name: "a", commands: ["cc a.c"], absoluteDirectory: scratch.path, sources: ["a.c"], outputs: ["a.o"])
        #expect(Self.runAlone(spec, stateDirectory: scratch.absolute("state"), output: "a.o", in: scratch) == "no record of a previous run")
        #expect(Self.runAlone(spec, stateDirectory: scratch.absolute("state"), output: "a.o", in: scratch) == "up to date")
        scratch.write("a.c", "int a = 1;")
        #expect(Self.runAlone(spec, stateDirectory: scratch.absolute("state"), output: "a.o", in: scratch) == "source a.c changed")
    }

    @Test func changedCommandsEnvironmentAndDirectory() {
        let project = Project()
        project.run()
        project.specs[0].commands = ["cc -O3 -c src/a.c"]
        #expect(project.run().first == "compile: command changed")
        project.specs[0].environment = [EnvironmentVariable("CFLAGS", "-O0")]
        #expect(project.run().first == "compile: environment changed")
        project.specs[0].directory = "src/.."
        #expect(project.run().first == "compile: directory changed")
        #expect(project.run().first == "compile: up to date")
    }

    @Test func forceRunsEverything() {
        let project = Project()
        project.run()
        #expect(project.run(force: true) == ["compile: forced (-B)", "link: forced (-B)"])
        #expect(project.run() == ["compile: up to date", "link: up to date"])
    }

    /// The case content hashing makes dangerous: a run with new inputs fails halfway, the inputs are
    /// reverted, and the old record matches them again — but the outputs are the failed run's.
    @Test func aFailedRunIsNeverForgottenByRevertingTheInputs() {
        let project = Project()
        project.run()
        project.scratch.write("src/a.c", "int a = broken")
        project.objectContent = "half-written"
        #expect(project.run(failing: ["compile"]).first == "compile: source src/a.c changed")
        project.scratch.write("src/a.c", "int a;")
        project.objectContent = "object 1"
        #expect(project.run().first == "compile: its last run did not succeed")
        #expect(project.run() == ["compile: up to date", "link: up to date"])
    }

    /// As above, but opsrun dies (kill -9) while the task runs: no `failed`, no `finish`.
    @Test func aRunThatDiedIsNeverForgottenByRevertingTheInputs() {
        let project = Project()
        project.run()
        project.scratch.write("src/a.c", "int a = 2;")
        do {
            let run = IncrementalRun(stateDirectory: project.stateDirectory)
            let check = run.check(project.specs[0])
            #expect(run.willRun(check) == nil)
            project.scratch.write("build/main.o", "half-written")
        }
        project.scratch.write("src/a.c", "int a;")
        #expect(project.run().first == "compile: its last run did not succeed")
    }

    @Test func aDryRunSaysWhichPrerequisiteRunsFirst() {
        let project = Project()
        project.run()
        project.scratch.write("src/a.c", "int a = 3;")
        #expect(project.run(dryRun: true) == ["compile: source src/a.c changed", "link: prerequisite compile runs first"])
        // A dependent with a reason of its own gives that reason.
        project.scratch.write("link.ld", "SECTIONS {}")
        #expect(project.run(dryRun: true) == ["compile: source src/a.c changed", "link: source link.ld changed"])
    }

    @Test(arguments: [false, true]) func aGroupStandsForItsPrerequisites(checksByIndex: Bool) {
        let project = Project()
        project.checksByIndex = checksByIndex
        project.scratch.write("pkg.txt", "package")
        project.specs = [
            project.spec("compile", sources: ["src/*.c"], outputs: ["build/main.o"]),
            project.spec("all", commands: [], prerequisites: ["compile"]),
            project.spec("package", sources: ["pkg.txt"], outputs: ["dist.tgz"], prerequisites: ["all"]),
        ]
        project.run()
        #expect(project.run() == ["compile: up to date", "all: up to date: so are its prerequisites", "package: up to date"])
        project.scratch.write("src/a.c", "int a = 4;")
        project.objectContent = "object 4"
        #expect(project.run().last == "package: prerequisite compile wrote different outputs")
    }

    @Test func withoutSourcesOutputsThatExistAndAnUnchangedDefinitionAreEnough() {
        let project = Project()
        project.specs = [
            project.spec("fetch", outputs: ["src.tgz"]),
            project.spec("lint"),
            project.spec("unpack", sources: ["link.ld"], outputs: ["unpacked"], prerequisites: ["fetch"]),
        ]
        #expect(project.run() == ["fetch: output src.tgz missing", "lint: it has no sources", "unpack: no record of a previous run"])
        #expect(project.run() == ["fetch: up to date", "lint: it has no sources", "unpack: up to date"])
        // A fetched file replaced by hand stays (outputs count by existence without sources), and
        // reaches the dependent through its content.
        project.scratch.write("src.tgz", "another archive")
        #expect(project.run() == ["fetch: up to date", "lint: it has no sources", "unpack: prerequisite fetch wrote different outputs"])
        project.specs[0].commands = ["curl -o src.tgz https://example.org/v2.tgz"]
        #expect(project.run().first == "fetch: command changed")
    }

    /// docs/manual/up-to-date.md: a prerequisite that wrote different outputs reruns a dependent without sources, and
    /// one that ran without declaring outputs (make's phony prerequisite) does too.
    @Test(arguments: [false, true]) func withoutSourcesPrerequisitesDecideAsMakeWould(checksByIndex: Bool) {
        let project = Project()
        project.checksByIndex = checksByIndex
        project.specs = [
            project.spec("compile", sources: ["src/*.c"], outputs: ["build/main.o"]),
            project.spec("test", prerequisites: ["compile"]),
            project.spec("package", outputs: ["app.tgz"], prerequisites: ["compile"]),
            project.spec("release", outputs: ["release.txt"], prerequisites: ["test"]),
        ]
        project.run()
        #expect(project.run() == [
            "compile: up to date", "test: it has no sources", "package: up to date",
            "release: prerequisite test ran and declares no outputs",
        ])
        project.scratch.write("src/a.c", "int a = 5;")
        project.objectContent = "object 5"
        #expect(project.run()[2] == "package: prerequisite compile wrote different outputs")
    }

    @Test func aDirectoryNamedAsSourceStandsForTheFilesBeneath() {
        let project = Project()
        project.scratch.write("assets/img/logo.svg", "<svg/>")
        project.specs = [project.spec("site", sources: ["assets"], outputs: ["site.html"])]
        project.run()
        #expect(project.run() == ["site: up to date"])
        project.scratch.write("assets/img/logo.svg", "<svg></svg>")
        #expect(project.run() == ["site: source assets/img/logo.svg changed"])
    }

    @Test func aMissingSourceIsReportedAndCountsOnceItAppears() {
        let project = Project()
        project.specs = [project.spec("gen", sources: ["schema.json", "src/*.c"], outputs: ["gen.c"])]
        let run = IncrementalRun(stateDirectory: project.stateDirectory)
        #expect(run.check(project.specs[0]).missingSources == ["schema.json"])
        #expect(run.finish() == nil)
        project.run()
        #expect(project.run() == ["gen: up to date"])
        project.scratch.write("schema.json", "{}")
        #expect(project.run() == ["gen: source schema.json added"])
    }

    /// Two manifests of one directory share `.opsrun/` but not their records; `Tasksfile.yaml`'s
    /// keep the bare task names they always had.
    @Test func eachManifestOfADirectoryHasItsOwnRecords() {
        let project = Project()
        let spec = project.spec("compile", sources: ["src/*.c"], outputs: ["build/main.o"])
        func run(_ names: StateRecordNames) -> String {
            let run = IncrementalRun(stateDirectory: project.stateDirectory, recordNames: names)
            let check = run.check(spec)
            if !check.verdict.isUpToDate {
                #expect(run.willRun(check) == nil)
                project.scratch.write("build/main.o", "object")
                #expect(run.succeeded(check).isEmpty)
            }
            #expect(run.finish() == nil)
            return check.verdict.description
        }
        let other = StateRecordNames(manifestPath: project.scratch.absolute("other.yaml"))
        #expect(run(.bare) == "no record of a previous run")
        #expect(run(other) == "no record of a previous run")
        #expect(run(.bare) == "up to date")
        #expect(run(other) == "up to date")
        #expect(StateRecordNames(manifestPath: project.scratch.absolute("Tasksfile.yaml")) == .bare)
        #expect(StateStore(directory: project.stateDirectory).allEntries().keys.sorted() == ["compile", "other.yaml/compile"])
    }

    @Test func aDamagedStateMakesEverythingRunWithOneWarning() {
        let project = Project()
        project.run()
        project.scratch.write(".opsrun/state", "garbage")
        let run = IncrementalRun(stateDirectory: project.stateDirectory)
        #expect(run.diagnostics.map(\.message) == ["not an opsrun state file; starting with no record of previous runs"])
        #expect(run.check(project.specs[0]).verdict == .mustRun(.noRecord))
    }

    /// The output cache stores the outputs a success found: an output directory's are the files
    /// beneath it, dot-files included; an empty one cannot be restored, so nothing is stored.
    @Test func aDirectoryOutputGivesTheCacheEveryFileBeneathIt() {
        let project = Project()
        let spec = project.spec("gen", sources: ["src/a.c"], outputs: ["dist", "dist/a.txt", "empty"])
        func succeeded() -> [String]? {
            let run = IncrementalRun(stateDirectory: project.stateDirectory, force: true)
            let check = run.check(spec)
            #expect(run.willRun(check) == nil)
            let outputs = run.succeededForCache(check).outputs
            #expect(run.finish() == nil)
            return outputs?.map(\.path)
        }
        project.scratch.write("dist/a.txt", "a")
        project.scratch.write("dist/.meta", "m")
        project.scratch.write("dist/sub/b.txt", "b")
        project.scratch.write("empty/only.txt", "")
        #expect(succeeded() == ["dist/.meta", "dist/a.txt", "dist/sub/b.txt", "empty/only.txt"])
        project.scratch.remove("empty/only.txt")
        #expect(succeeded() == nil)
    }
}
