@testable import OpsrunKit
import Testing
@testable import OpsrunCore
@testable import OpsrunIncremental

/// A depfile's inputs in the state: recorded with the task's success, in the log and the snapshot,
/// in a compatible encoding (records without a depfile are what they were).
@Suite struct DepfileRecordTests {
    /// The record of a compile whose depfile listed `a.c` (also a declared source) and two headers.
    static func record(_ version: String = "1", problem: DepfileRecord.Problem? = nil) -> TaskRecord {
        let sources = ["/usr/include/stdio.h", "a.c", "include/x.h", "include/y.h", "notes.txt"]
        let input = TaskDefinitionInput(
            commands: ["cc -MMD -c a.c"], sources: sources.map { FileDigest(path: $0, digest: .of($0 + version)) })
        let depfile = DepfileRecord(inputs: ["/usr/include/stdio.h", "a.c", "include/y.h"], problem: problem)
        return TaskRecord(input: input, outputs: [FileDigest(path: "a.o", digest: .of("object"))], depfile: depfile)
    }

    @Test func anEventRoundTripsTheDepfilesInputs() throws {
        for problem in [nil, DepfileRecord.Problem.missing, .malformed] {
            let event = StateRecord.succeeded(task: "compile", directory: "", record: Self.record(problem: problem))
            let bytes = event.encoded()
            #expect(bytes.withUnsafeBytes { StateRecord(decoding: $0) } == event)
        }
    }

    @Test func aRecordWithoutDepfileIsEncodedAsBefore() {
        var plain = Self.record()
        plain.depfile = nil
        let without = StateRecord.succeeded(task: "compile", directory: "", record: plain).encoded()
        let with = StateRecord.succeeded(task: "compile", directory: "", record: Self.record()).encoded()
        // The depfile's part only follows what a record always held: problem, count, 3 positions.
        #expect(Array(with.prefix(without.count)) == without)
        #expect(Array(with.dropFirst(without.count)) == [0, 3, 0, 0, 1])
    }

    @Test func theSnapshotKeepsTheDepfilesInputs() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        do {
            let store = StateStore(directory: directory)
            try store.recordSucceeded("compile", Self.record(), directory: scratch.path)
            try store.recordSucceeded("broken", Self.record(problem: .malformed), directory: scratch.path)
            try store.recordSucceeded("plain", StateSnapshotTests.record("1"), directory: scratch.path)
            try store.compact()
        }
        let store = StateStore(directory: directory)
        #expect(store.diagnostics.isEmpty)
        #expect(store.entry(for: "compile") == .succeeded(Self.record()))
        #expect(store.entry(for: "broken") == .succeeded(Self.record(problem: .malformed)))
        #expect(store.entry(for: "plain") == .succeeded(StateSnapshotTests.record("1")))
    }

    @Test func aDamagedDepfilePartIsRefused() {
        let plain = StateRecord.succeeded(task: "compile", directory: "", record: {
            var record = Self.record()
            record.depfile = nil
            return record
        }()).encoded()
        // A position past the sources, an unknown problem, a count larger than the sources.
        for tail: [UInt8] in [[0, 1, 5], [3, 0], [0, 6, 0, 0, 0, 0, 0, 0]] {
            #expect((plain + tail).withUnsafeBytes { StateRecord(decoding: $0) } == nil, "\(tail)")
        }
    }
}
