@testable import OpsrunKit
import Testing
@testable import OpsrunIncremental

/// `.opsrun/durations`: the last successful duration of every task that ran (issue 15).
@Suite struct TaskDurationsTests {
    let scratch = ScratchDirectory()
    var directory: String { scratch.absolute(".opsrun") }

    @Test func durationsAreKeptForTheNextRun() {
        let first = TaskDurations(stateDirectory: directory)
        #expect(first.microseconds(of: "compile") == nil)
        first.record("compile", microseconds: 1_500_000)
        first.record("test", microseconds: 20)
        first.save(keeping: ["compile", "test"])
        #expect(scratch.exists(".opsrun/.gitignore"))
        let next = TaskDurations(stateDirectory: directory)
        #expect(next.microseconds(of: "compile") == 1_500_000)
        #expect(next.microseconds(of: "test") == 20)
    }

    @Test func nothingIsWrittenWhenNothingRan() {
        TaskDurations(stateDirectory: directory).save(keeping: [])
        #expect(!scratch.exists(".opsrun"))
    }

    @Test func tasksGoneFromTheManifestAreDroppedAndOtherManifestsKept() {
        let tasksfile = TaskDurations(stateDirectory: directory)
        tasksfile.record("old", microseconds: 1)
        tasksfile.record("compile[src/a.c]", microseconds: 2)
        tasksfile.save(keeping: ["old", "compile[src/a.c]"])
        let other = TaskDurations(stateDirectory: directory, recordNames: StateRecordNames(manifestPath: "/p/b.yaml"))
        other.record("old", microseconds: 3)
        other.save(keeping: ["old"])
        let again = TaskDurations(stateDirectory: directory)
        again.record("new", microseconds: 4)
        again.save(keeping: ["new", "compile[src/a.c]"])
        #expect(TaskDurations.read(scratch.absolute(".opsrun/durations")) == [
            "new": 4, "compile[src/a.c]": 2, "b.yaml/old": 3,
        ])
    }

    @Test func aDamagedOrForeignFileCountsAsEmpty() {
        let durations = TaskDurations(stateDirectory: directory)
        durations.record("compile", microseconds: 7)
        durations.save(keeping: ["compile"])
        let good = scratch.bytes(".opsrun/durations")
        var flipped = good
        flipped[good.count / 2] ^= 1
        for damaged in [Array(good.prefix(good.count - 1)), flipped, Array("opsrun state\n".utf8), []] {
            scratch.writeBytes(".opsrun/durations", damaged)
            #expect(TaskDurations(stateDirectory: directory).microseconds(of: "compile") == nil)
        }
    }
}
