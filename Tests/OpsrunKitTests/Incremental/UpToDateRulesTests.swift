import Testing
@testable import OpsrunIncremental

/// The up-to-date rules (docs/manual/up-to-date.md) on a virtual file system, with the state in
/// memory: no process runs and nothing is on disk, and the clock is the test's, so a file edited
/// within the same timestamp as a run is a line of the test rather than a race.
@Suite struct UpToDateRulesTests {
    final class Project {
        let files = VirtualFileSystem()
        /// `.opsrun/state`, across the runs of a test.
        let state = MemoryStateMedium()
        var specs: [IncrementalTaskSpec] = []
        /// What each task's "command" does when it runs: writes its outputs, say.
        var commands: [String: (VirtualFileSystem) -> Void] = [:]

        let root = "/project"
        func path(_ relative: String) -> String { root + "/" + relative }

        func task(
            _ name: String, sources: [String] = [], outputs: [String] = [], depfile: String? = nil,
            prerequisites: [String] = [], run: @escaping (VirtualFileSystem) -> Void
        ) {
            specs.append(IncrementalTaskSpec(
                name: name, commands: ["make \(name)"], absoluteDirectory: root, sources: sources, outputs: outputs,
                depfile: depfile, prerequisites: prerequisites))
            commands[name] = run
        }

        /// One run, as the engine drives it: each task checked when it becomes ready, run when it
        /// must, recorded when it succeeds. Returns each task's verdict as `--explain` says it.
        @discardableResult
        func run() -> [String] {
            let run = openRun()
            var lines: [String] = []
            for (index, spec) in specs.enumerated() {
                let prerequisites = spec.prerequisites.map { name in specs.firstIndex { $0.name == name }! }
                let check = run.check(spec, index: index, prerequisiteIndices: prerequisites)
                lines.append("\(spec.name): \(check.verdict)")
                if check.verdict.isUpToDate { continue }
                #expect(run.willRun(check) == nil)
                commands[spec.name]?(files)
                #expect(run.succeeded(check).isEmpty)
            }
            #expect(run.finish() == nil)
            return lines
        }

        init() {
            files.makeDirectory(root)
        }

        func openRun() -> IncrementalRun {
            IncrementalRun(
                stateDirectory: path(".opsrun"), force: false, tasks: specs,
                store: { [state] in StateStore(directory: self.path(".opsrun"), creating: true, medium: state) },
                files: files)
        }
    }

    /// A compile of `src/a.c` into `out/a.o`, whose object is its source's text.
    func compileProject() -> Project {
        let project = Project()
        project.files.write(project.path("src/a.c"), "int a;")
        project.task("compile", sources: ["src/a.c"], outputs: ["out/a.o"]) { files in
            files.write(project.path("out/a.o"), "object of " + (files.text(project.path("src/a.c")) ?? ""))
        }
        return project
    }

    @Test func aSecondRunLongAfterTheFirstReadsNoFile() {
        let project = compileProject()
        #expect(project.run() == ["compile: no record of a previous run"])
        project.files.advance(seconds: 10)
        // The first run's files were too new to trust without reading them again once.
        project.run()
        _ = project.files.takeReads()
        #expect(project.run() == ["compile: up to date"])
        #expect(project.files.takeReads() == [])
    }

    @Test func aSourceRewrittenWithinTheSameTimestampIsReadAgain() {
        let project = compileProject()
        project.run()
        // Same size, same mtime and ctime: only its bytes differ, as when an editor saves twice
        // in one clock tick of the file system.
        project.files.write(project.path("src/a.c"), "int b;")
        #expect(project.run() == ["compile: source src/a.c changed"])
        #expect(project.files.text(project.path("out/a.o")) == "object of int b;")
    }

    @Test func aSourceWhoseMtimeWasSetBackIsStillSeenChanged() {
        let project = compileProject()
        project.run()
        project.files.advance(seconds: 10)
        project.run()
        let before = project.files.status(project.path("src/a.c"))!.modificationNanoseconds
        project.files.advance(seconds: 10)
        project.files.write(project.path("src/a.c"), "int c;")
        // `touch -d` or `cp -p` puts the old mtime back; the kernel's ctime still moves.
        project.files.setModified(project.path("src/a.c"), to: before)
        #expect(project.run() == ["compile: source src/a.c changed"])
    }

    /// An edit made while the commands ran and then put back: they may have read the edit, so the
    /// old digest proves nothing (found by an adversarial probe: "1 up to date" with the edit's
    /// output, and the cache filed it under the old content).
    @Test func aSourceEditedWhileItsTaskRanAndPutBackRunsItAgain() {
        let project = compileProject()
        project.run()
        project.files.advance(seconds: 10)
        project.files.write(project.path("src/a.c"), "int a; // edited")
        project.files.advance(seconds: 10)
        project.commands["compile"] = { files in
            files.write(project.path("out/a.o"), "object of " + (files.text(project.path("src/a.c")) ?? ""))
            // Saved again while the compile ran (`git checkout`, an editor), after it read it.
            files.write(project.path("src/a.c"), "int a; // edited again")
        }
        #expect(project.run() == ["compile: source src/a.c changed"])
        project.commands["compile"] = { files in
            files.write(project.path("out/a.o"), "object of " + (files.text(project.path("src/a.c")) ?? ""))
        }
        project.files.advance(seconds: 10)
        // Put back as it was when the compile started: its output is of other bytes.
        project.files.write(project.path("src/a.c"), "int a; // edited")
        #expect(project.run() == ["compile: source src/a.c was written while its last run ran, so its content cannot be trusted"])
        #expect(project.files.text(project.path("out/a.o")) == "object of int a; // edited")
    }

    @Test func aDeletedOutputRunsItsTaskAgain() {
        let project = compileProject()
        project.run()
        project.files.remove(project.path("out/a.o"))
        #expect(project.run() == ["compile: output out/a.o missing"])
        #expect(project.run() == ["compile: up to date"])
    }

    @Test func aFileAddedInsideAnOutputDirectoryMakesItsTaskRun() {
        let project = Project()
        project.files.write(project.path("page.md"), "# Title")
        project.task("site", sources: ["page.md"], outputs: ["dist"]) { files in
            files.write(project.path("dist/index.html"), "<h1>Title</h1>")
        }
        project.run()
        #expect(project.run() == ["site: up to date"])
        project.files.write(project.path("dist/stray.html"), "left by hand")
        #expect(project.run() == ["site: output dist/stray.html changed since its last run"])
    }

    @Test func aNamedPipeAmongTheSourcesIsNeverRead() {
        let project = compileProject()
        project.files.makeNamedPipe(project.path("src/fifo"))
        project.specs[0].sources = ["src"]
        let run = project.openRun()
        let check = run.check(project.specs[0], index: 0)
        #expect(check.specialSources == [SpecialSource(path: "src/fifo", kind: "a named pipe", pattern: "src")])
        #expect(!project.files.takeReads().contains(project.path("src/fifo")))
        _ = run.finish()
    }

    @Test func anEditedHeaderTheDepfileListedRerunsItsTask() {
        let project = Project()
        project.files.write(project.path("a.c"), "#include \"a.h\"")
        project.files.write(project.path("a.h"), "int a;")
        project.files.write(project.path("b.h"), "int b;")
        // Edited before the build started, not while it ran (which would make them untrusted).
        project.files.advance(seconds: 1)
        project.task("compile", sources: ["a.c"], outputs: ["a.o"], depfile: "a.d") { files in
            files.write(project.path("a.o"), "object")
            files.write(project.path("a.d"), "a.o: a.c a.h\n")
        }
        project.run()
        project.files.advance(seconds: 10)
        #expect(project.run() == ["compile: up to date"])
        // A header it does not include changes nothing.
        project.files.write(project.path("b.h"), "int bb;")
        #expect(project.run() == ["compile: up to date"])
        project.files.write(project.path("a.h"), "int aa;")
        #expect(project.run() == ["compile: source a.h changed"])
    }

    @Test func aPrerequisiteThatWroteTheSameBytesStopsTheRebuildThere() {
        let project = compileProject()
        project.task("link", outputs: ["app"], prerequisites: ["compile"]) { files in
            files.write(project.path("app"), "app")
        }
        project.run()
        // A comment changes the source, not the object.
        project.commands["compile"] = { files in files.write(project.path("out/a.o"), "object of int a;") }
        project.files.write(project.path("src/a.c"), "int a; // note")
        #expect(project.run() == ["compile: source src/a.c changed", "link: up to date"])
    }
}
