import OpsrunCore
import OpsrunEngine
import Testing
@testable import OpsrunIncremental
@testable import OpsrunReuse

/// What decides whether a task runs (docs/manual/up-to-date.md), asked as the engine asks it, on a
/// virtual file system with the state in memory: no process is spawned and nothing is on disk.
@Suite struct ReuseTests {
    final class Project {
        let files = VirtualFileSystem()
        let state = MemoryStateMedium()
        let root = "/project"
        var specs: [IncrementalTaskSpec] = []
        /// What each task's "command" does when it runs.
        var commands: [String: (VirtualFileSystem) -> Void] = [:]
        /// What the reporter heard, as `status` would print it: `warning: …`, `error: …`, `explain: …`.
        var heard: [String] = []

        init() { files.makeDirectory(root) }

        func path(_ relative: String) -> String { root + "/" + relative }

        func task(
            _ name: String, sources: [String] = [], outputs: [String] = [], prerequisites: [String] = [],
            run: @escaping (VirtualFileSystem) -> Void = { _ in }
        ) {
            specs.append(IncrementalTaskSpec(
                name: name, commands: ["make \(name)"], absoluteDirectory: root, sources: sources, outputs: outputs,
                prerequisites: prerequisites))
            commands[name] = run
        }

        func reuse(recording: Bool = true, explains: Bool = false) -> Reuse {
            let run = IncrementalRun(
                stateDirectory: path(".opsrun"), force: false, tasks: specs,
                store: { [state] in StateStore(directory: self.path(".opsrun"), creating: true, medium: state) },
                files: files)
            let prerequisites = specs.map { spec in spec.prerequisites.map { name in specs.firstIndex { $0.name == name }! } }
            return Reuse(
                run: run, tasks: specs, prerequisites: prerequisites, recording: recording,
                reporter: ReuseReporter(
                    warning: { self.heard.append("warning: \($0)") }, error: { self.heard.append("error: \($0)") },
                    explain: { self.heard.append("explain: \($0)") }),
                explains: explains)
        }

        /// One run as the engine drives it, in manifest order: each task decided, run when it must
        /// and ended. Returns each decision.
        @discardableResult
        func run(explains: Bool = false) -> [String: UpToDateDecision] {
            let reuse = reuse(explains: explains)
            var decisions: [String: UpToDateDecision] = [:]
            for (index, spec) in specs.enumerated() {
                let decision = reuse.decide(index)
                decisions[spec.name] = decision
                guard decision == .mustRun else { continue }
                reuse.willRun(index)
                commands[spec.name]?(files)
                reuse.didEnd(index, succeeded: true)
            }
            reuse.finish()
            return decisions
        }
    }

    func compileAndLink() -> Project {
        let project = Project()
        project.files.write(project.path("src/a.c"), "int a;")
        project.task("compile", sources: ["src/a.c"], outputs: ["a.o"]) { files in
            files.write(project.path("a.o"), "object of " + (files.text(project.path("src/a.c")) ?? ""))
        }
        project.task("link", sources: ["a.o"], outputs: ["app"], prerequisites: ["compile"]) { files in
            files.write(project.path("app"), "app")
        }
        return project
    }

    @Test func aTaskWhoseRecordHoldsIsNotRunAndNothingIsSaid() {
        let project = compileAndLink()
        #expect(project.run() == ["compile": .mustRun, "link": .mustRun])
        project.heard = []
        #expect(project.run(explains: true) == ["compile": .upToDate, "link": .upToDate])
        #expect(project.heard == [])
    }

    @Test func explainSaysWhyEachTaskRuns() {
        let project = compileAndLink()
        project.run()
        project.files.write(project.path("src/a.c"), "int b;")
        project.heard = []
        project.run(explains: true)
        #expect(project.heard == [
            "explain: compile runs: source src/a.c changed",
            "explain: link runs: source a.o changed",
        ])
    }

    @Test func aMissingSourceNoTaskMakesFailsItsTaskWithoutStartingAndNamesANearOne() {
        let project = Project()
        project.files.write(project.path("inc/config.h"), "#define X")
        project.task("compile", sources: ["inc/cofnig.h"], outputs: ["a.o"])
        #expect(project.run() == ["compile": .cannotRun("source 'inc/cofnig.h' does not exist")])
        #expect(project.heard == [
            "error: error: task 'compile': source 'inc/cofnig.h' does not exist, and no task of this run makes it; "
                + "did you mean 'inc/config.h'?"
        ])
    }

    @Test func aMissingSourceAnotherTaskOfTheRunMakesIsNoError() {
        let project = Project()
        project.task("generate", outputs: ["gen/types.h"]) { files in files.write(project.path("gen/types.h"), "int t;") }
        project.task("compile", sources: ["gen/types.h"], outputs: ["a.o"], prerequisites: ["generate"]) { files in
            files.write(project.path("a.o"), "object")
        }
        let reuse = project.reuse()
        // Decided before `generate` ran, as a plan does: the file is not there yet.
        #expect(reuse.decide(1) == .mustRun)
        #expect(project.heard == [])
        reuse.finish()
    }

    @Test func aPlanSaysAMissingSourceAndGoesOn() {
        let project = Project()
        project.task("compile", sources: ["missing.c"], outputs: ["a.o"])
        let reuse = project.reuse(recording: false)
        #expect(reuse.decide(0) == .mustRun)
        #expect(project.heard.count == 1 && project.heard[0].contains("source 'missing.c' does not exist"))
        reuse.finish()
    }

    @Test func aNamedPipeAmongTheSourcesFailsItsTaskWithoutBeingRead() {
        let project = Project()
        project.files.makeNamedPipe(project.path("src/fifo"))
        project.task("compile", sources: ["src/fifo"], outputs: ["a.o"])
        #expect(project.run() == ["compile": .cannotRun("source 'src/fifo' is a named pipe, not a file")])
        #expect(project.files.takeReads() == [])
    }

    @Test func aTaskThatFailedRunsAgainNextTime() {
        let project = compileAndLink()
        project.run()
        project.files.write(project.path("src/a.c"), "int broken;")
        let reuse = project.reuse()
        #expect(reuse.decide(0) == .mustRun)
        reuse.willRun(0)
        reuse.didEnd(0, succeeded: false)
        reuse.finish()
        // The old record must not stand: the outputs on disk may be half written.
        project.files.write(project.path("src/a.c"), "int a;")
        project.heard = []
        project.run(explains: true)
        #expect(project.heard.first == "explain: compile runs: its last run did not succeed")
    }
}
