@testable import OpsrunKit
import Testing
import Foundation
@testable import OpsrunCore
@testable import OpsrunIncremental

@Suite struct StateStoreTests {
    static func input(_ version: String) -> TaskDefinitionInput {
        TaskDefinitionInput(
            commands: ["cc -c a.c -o a.o"], environment: [EnvironmentVariable("V", version)],
            sources: [FileDigest(path: "a.c", digest: .of(version))],
            prerequisiteOutputs: [PrerequisiteOutputs(task: "gen", outputs: [FileDigest(path: "g.h", digest: .of("g"))])])
    }

    static func record(_ version: String) -> TaskRecord {
        TaskRecord(input: input(version), outputs: [FileDigest(path: "a.o", digest: .of("out " + version))])
    }

    static let stat = StatCacheEntry(
        status: FileStatus(kind: .regular, size: 12, modificationNanoseconds: 1_700_000_000_123_456_789,
                           changeNanoseconds: 1_700_000_001_000_000_000, inode: 4242),
        digest: .of("content"), isTrusted: true)

    func bytes(of store: StateStore) -> [UInt8] { ScratchDirectory.read(store.path) }

    @Test func recordsSurviveClosingAndOpening() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        do {
            let store = StateStore(directory: directory)
            #expect(store.allEntries().isEmpty && store.diagnostics.isEmpty)
            try store.recordSucceeded("a", Self.record("1"), statEntries: [("/p/a.c", Self.stat)])
            try store.recordSucceeded("b", Self.record("2"))
            try store.recordSucceeded("a", Self.record("3"))
        }
        let store = StateStore(directory: directory)
        #expect(store.diagnostics.isEmpty)
        #expect(store.allEntries() == ["a": .succeeded(Self.record("3")), "b": .succeeded(Self.record("2"))])
        #expect(store.allStatEntries() == ["/p/a.c": Self.stat])
        #expect(ScratchDirectory.read(directory + "/.gitignore") == Array("*\n".utf8))
    }

    @Test func startingARecordedTaskLeavesItUnfinishedAndNothingElseIsWritten() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        do {
            let store = StateStore(directory: directory)
            try store.recordStarted("never-ran")
            #expect(!scratch.exists(".opsrun"))
            try store.recordSucceeded("a", Self.record("1"))
            try store.recordStarted("a")
            #expect(store.entry(for: "a") == .unfinished)
            let size = ScratchDirectory.read(store.path).count
            try store.recordStarted("a")
            #expect(ScratchDirectory.read(store.path).count == size)
        }
        #expect(StateStore(directory: directory).allEntries() == ["a": .unfinished])
    }

    @Test func untrustedStatEntriesAreNotPersisted() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        do {
            let store = StateStore(directory: directory)
            var racy = Self.stat
            racy.isTrusted = false
            try store.recordStatEntries([("/racy", racy), ("/safe", Self.stat)])
        }
        #expect(StateStore(directory: directory).allStatEntries() == ["/safe": Self.stat])
    }

    /// The newest frame is cut at every possible length, as a kill -9 or power loss in the middle of
    /// writing it would leave it: the frames before it survive, it is lost, and the task it recorded
    /// never looks up to date — neither with the inputs of that run nor with the older inputs.
    @Test func aTornLastRecordIsDroppedAndNeverMakesATaskLookUpToDate() throws {
        let scratch = ScratchDirectory()
        let (directory, path) = scratch.state
        do {
            let store = StateStore(directory: directory)
            try store.recordSucceeded("a", Self.record("1"))
            try store.recordSucceeded("b", Self.record("b"))
            try store.recordStarted("a")  // a runs again, now with inputs "2"
        }
        let beforeLast = ScratchDirectory.read(path)
        do { try StateStore(directory: directory).recordSucceeded("a", Self.record("2")) }
        let full = ScratchDirectory.read(path)
        #expect(full.count > beforeLast.count + 32)

        for cut in beforeLast.count..<full.count {
            ScratchDirectory.writeFile(path, Array(full[..<cut]))
            let store = StateStore(directory: directory)
            #expect(store.diagnostics.isEmpty, "cut at \(cut)")
            #expect(store.allEntries() == ["a": .unfinished, "b": .succeeded(Self.record("b"))], "cut at \(cut)")
            for version in ["1", "2"] {
                let verdict = UpToDateCheck.verdict(
                    for: Self.input(version), declaresSources: true,
                    outputs: [OutputState(path: "a.o", digest: .of("out " + version))], entry: store.entry(for: "a"), force: false)
                #expect(verdict == .mustRun(.lastRunDidNotSucceed), "cut at \(cut), inputs \(version)")
            }
        }
        ScratchDirectory.writeFile(path, full)
        #expect(StateStore(directory: directory).entry(for: "a") == .succeeded(Self.record("2")))
    }

    /// Cut inside a "started" frame: the task had not started yet, so its older record still holds.
    @Test func aTornStartRecordLeavesTheOlderRecord() throws {
        let scratch = ScratchDirectory()
        let (directory, path) = scratch.state
        do { try StateStore(directory: directory).recordSucceeded("a", Self.record("1")) }
        let before = ScratchDirectory.read(path)
        do {
            let store = StateStore(directory: directory)
            try store.recordStarted("a")
        }
        let full = ScratchDirectory.read(path)
        for cut in before.count..<full.count {
            ScratchDirectory.writeFile(path, Array(full[..<cut]))
            #expect(StateStore(directory: directory).allEntries() == ["a": .succeeded(Self.record("1"))], "cut at \(cut)")
        }
    }

    @Test func writingAfterATornTailCutsItOff() throws {
        let scratch = ScratchDirectory()
        let (directory, path) = scratch.state
        do {
            let store = StateStore(directory: directory)
            try store.recordSucceeded("a", Self.record("1"))
            try store.recordSucceeded("b", Self.record("2"))
        }
        let full = ScratchDirectory.read(path)
        ScratchDirectory.writeFile(path, Array(full.dropLast(5)))
        do { try StateStore(directory: directory).recordSucceeded("c", Self.record("3")) }
        let store = StateStore(directory: directory)
        #expect(store.diagnostics.isEmpty)
        #expect(store.allEntries() == ["a": .succeeded(Self.record("1")), "c": .succeeded(Self.record("3"))])
    }

    func openWithContents(_ bytes: [UInt8]) -> (StateStore, ScratchDirectory) {
        let scratch = ScratchDirectory()
        scratch.makeDirectory(".opsrun")
        scratch.writeBytes(".opsrun/state", bytes)
        return (StateStore(directory: scratch.absolute(".opsrun")), scratch)
    }

    @Test func aForeignFileIsOneWarningAndEmptyState() throws {
        let (store, scratch) = openWithContents(Array("hello, world\n".utf8))
        #expect(store.diagnostics.map(\.description) == [
            "\(scratch.path)/.opsrun/state: warning: not an opsrun state file; starting with no record of previous runs",
        ])
        #expect(store.diagnostics.first?.severity == .warning)
        #expect(store.allEntries().isEmpty && store.allStatEntries().isEmpty)
        // The next write starts a fresh log in its place.
        try store.recordSucceeded("a", Self.record("1"))
        store.close()
        let reopened = StateStore(directory: scratch.absolute(".opsrun"))
        #expect(reopened.diagnostics.isEmpty)
        #expect(reopened.allEntries() == ["a": .succeeded(Self.record("1"))])
    }

    @Test func aCorruptHeaderIsAWarning() {
        var header = StateLog.header
        header[2] ^= 0x20
        #expect(openWithContents(header).0.diagnostics.map(\.message)
            == ["not an opsrun state file; starting with no record of previous runs"])
        #expect(openWithContents([]).0.diagnostics.map(\.message)
            == ["not an opsrun state file; starting with no record of previous runs"])
    }

    @Test func aNewerFormatIsAWarning() {
        var writer = ByteWriter(bytes: StateLog.magic)
        writer.uint32(StateLog.version + 1)
        #expect(openWithContents(writer.bytes).0.diagnostics.map(\.message)
            == ["written by a newer opsrun (state format \(StateLog.version + 1)); starting with no record of previous runs"])
    }

    /// A state file with an empty snapshot, as the first write of a project leaves it.
    static let emptyStateFile = StateLog.file(snapshot: StateSnapshotWriter.payload(
        tasks: [:], stats: [:], keys: StatePathKeys(stateDirectory: "/p/.opsrun")))

    @Test func damageBeforeTheEndIsAWarningAndEmptyState() {
        let frames = StateLog.frame(.succeeded(task: "a", directory: "", record: Self.record("1")))
            + StateLog.frame(.succeeded(task: "b", directory: "", record: Self.record("2")))
        let eventsStart = Self.emptyStateFile.count
        var damaged = Self.emptyStateFile + frames
        damaged[eventsStart + 10] ^= 1
        let (store, _) = openWithContents(damaged)
        #expect(store.diagnostics.map(\.message) == ["damaged at byte \(eventsStart); starting with no record of previous runs"])
        #expect(store.allEntries().isEmpty)
        // A zero length is never written, torn or not.
        let (zero, _) = openWithContents(Self.emptyStateFile + frames + [0, 0, 0, 0])
        #expect(zero.diagnostics.map(\.message) == ["damaged at byte \(eventsStart + frames.count); starting with no record of previous runs"])
    }

    @Test func anUnreadableFileIsAWarning() {
        let scratch = ScratchDirectory()
        scratch.makeDirectory(".opsrun/state")
        #expect(StateStore(directory: scratch.absolute(".opsrun")).diagnostics.map(\.message)
            == ["cannot be read (Is a directory); starting with no record of previous runs"])
    }

    @Test func compactionKeepsOnlyTheLiveRecords() throws {
        let scratch = ScratchDirectory()
        let (directory, path) = scratch.state
        do {
            // Under the default minimum: no compaction when this one closes.
            let store = StateStore(directory: directory)
            try store.recordStatEntries([("/p/a.c", Self.stat)])
            for version in 0..<40 { try store.recordSucceeded("a", Self.record("\(version)")) }
            try store.recordSucceeded("b", Self.record("b"))
            try store.recordStarted("b")
        }
        let grown = ScratchDirectory.read(path).count
        do { try StateStore(directory: directory, compactionMinimumBytes: 0).recordSucceeded("c", Self.record("c")) }
        let live = StateLog.file(snapshot: StateSnapshotWriter.payload(
            tasks: ["a": StoredTask(entry: .succeeded(Self.record("39")), directory: ""),
                    "b": StoredTask(entry: .unfinished, directory: ""),
                    "c": StoredTask(entry: .succeeded(Self.record("c")), directory: "")],
            stats: ["/p/a.c": Self.stat], keys: StatePathKeys(stateDirectory: directory)))
        #expect(ScratchDirectory.read(path) == live)
        #expect(live.count * 10 < grown)
        let store = StateStore(directory: directory)
        #expect(store.allEntries() == ["a": .succeeded(Self.record("39")), "b": .unfinished, "c": .succeeded(Self.record("c"))])
        #expect(store.allStatEntries() == ["/p/a.c": Self.stat])
        let left = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        #expect(!left.contains { $0.hasSuffix(".tmp") }, "\(left)")
    }

    /// A store opened ahead of need (the run then uses no state) is let go without a write, even
    /// when a compaction would be due.
    @Test func closingWithoutCompactingLeavesTheFileAsItWas() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        do {
            let store = StateStore(directory: directory)
            for version in 0..<40 { try store.recordSucceeded("a", Self.record("\(version)")) }
        }
        let grown = ScratchDirectory.read(directory + "/state")
        StateStore(directory: directory, compactionMinimumBytes: 0).close(compacting: false)
        #expect(ScratchDirectory.read(directory + "/state") == grown)
        StateStore(directory: directory, compactionMinimumBytes: 0).close()
        #expect(ScratchDirectory.read(directory + "/state").count * 10 < grown.count)
    }

    @Test func aSmallLogIsNotCompacted() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        do {
            let store = StateStore(directory: directory)
            for version in 0..<10 { try store.recordSucceeded("a", Self.record("\(version)")) }
        }
        let before = ScratchDirectory.read(directory + "/state").count
        do { try StateStore(directory: directory).recordSucceeded("b", Self.record("b")) }
        #expect(ScratchDirectory.read(directory + "/state").count
            == before + StateLog.frame(.succeeded(task: "b", directory: "", record: Self.record("b"))).count)
    }

    @Test func aSecondOpsrunNeitherTrustsNorWrites() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        let first = StateStore(directory: directory)
        try first.recordSucceeded("a", Self.record("1"))
        let size = ScratchDirectory.read(first.path).count
        let second = StateStore(directory: directory)
        #expect(second.diagnostics.map(\.message)
            == ["in use by another opsrun; this run neither trusts nor records it (every task runs)"])
        #expect(second.allEntries().isEmpty)
        try second.recordSucceeded("b", Self.record("2"))
        #expect(ScratchDirectory.read(first.path).count == size)
        first.close()
        #expect(StateStore(directory: directory).allEntries() == ["a": .succeeded(Self.record("1"))])
    }

    @Test func aHundredThousandStatEntriesRoundTrip() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        var entries: [(path: String, entry: StatCacheEntry)] = []
        for index in 0..<100_000 {
            var entry = Self.stat
            entry.status.inode = UInt64(index)
            entries.append(("/project/src/file\(index).c", entry))
        }
        do { try StateStore(directory: directory).recordStatEntries(entries) }
        let store = StateStore(directory: directory)
        #expect(store.allStatEntries().count == 100_000)
        #expect(store.statEntry(at: "/project/src/file99999.c")?.status.inode == 99_999)
    }
}
