@testable import OpsrunKit
import Testing
@testable import OpsrunCore
@testable import OpsrunIncremental

/// The snapshot format (state format 2 and later): what compaction writes, how it is read lazily, and what
/// happens to files it does not accept.
@Suite struct StateSnapshotTests {
    static func record(_ version: String, sources: [String] = ["a.c"], outputs: [String] = ["a.o"]) -> TaskRecord {
        let input = TaskDefinitionInput(
            commands: ["cc -c a.c -o a.o"], environment: [EnvironmentVariable("V", "1")],
            sources: sources.map { FileDigest(path: $0, digest: .of($0 + version)) },
            prerequisiteOutputs: [PrerequisiteOutputs(task: "gen", outputs: [FileDigest(path: "g.h", digest: .of("g"))])])
        return TaskRecord(input: input, outputs: outputs.map { FileDigest(path: $0, digest: .of("out " + version)) })
    }

    static func stat(inode: UInt64, digest: String = "content") -> StatCacheEntry {
        StatCacheEntry(
            status: FileStatus(kind: .regular, size: 12, modificationNanoseconds: 1_700_000_000_123_456_789,
                               changeNanoseconds: 1_700_000_001_000_000_000, inode: inode),
            digest: .of(digest), isTrusted: true)
    }

    /// How many bytes of the state file follow its snapshot.
    static func eventBytes(_ path: String) -> Int {
        let bytes = ScratchDirectory.read(path)
        let contents = StateLog.parse(bytes).contents
        #expect(contents.problem == nil && !contents.isOlderFormat)
        return bytes.count - (contents.snapshot.map { $0.upperBound + StateLog.checksumLength } ?? 0)
    }

    @Test func snapshotRoundTripsEveryTask() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        let project = scratch.path
        let statEntries: [String: StatCacheEntry] = [
            project + "/a.c": Self.stat(inode: 1),           // a source of a task in the project directory
            project + "/a.o": Self.stat(inode: 2),           // its output
            project + "/sub/b.c": Self.stat(inode: 3),       // a source of a task in sub/
            project + "/other/loose.txt": Self.stat(inode: 4),  // named by no record
            "/elsewhere/x.h": Self.stat(inode: 5, digest: "x"),  // outside the project
        ]
        do {
            let store = StateStore(directory: directory)
            try store.recordSucceeded("a", Self.record("1"), directory: project, statEntries: statEntries.map { ($0.key, $0.value) })
            try store.recordSucceeded("b", Self.record("2", sources: ["b.c", "/elsewhere/x.h"]), directory: project + "/sub")
            try store.recordSucceeded("c", Self.record("3"))
            try store.recordStarted("c")
            try store.compact()
            #expect(Self.eventBytes(store.path) == 0)
        }
        let store = StateStore(directory: directory)
        #expect(store.diagnostics.isEmpty)
        #expect(store.allEntries() == [
            "a": .succeeded(Self.record("1")),
            "b": .succeeded(Self.record("2", sources: ["b.c", "/elsewhere/x.h"])),
            "c": .unfinished,
        ])
        #expect(store.entry(for: "b") == .succeeded(Self.record("2", sources: ["b.c", "/elsewhere/x.h"])))
        #expect(store.entry(for: "d") == nil)
        #expect(store.allStatEntries() == statEntries)
        for (path, entry) in statEntries { #expect(store.statEntry(at: path) == entry, "\(path)") }
        #expect(store.statEntry(at: project + "/b.c") == nil)
        #expect(store.statEntry(at: project + "/sub/a.c") == nil)
    }

    @Test func digestsAndPathsAreStoredOnce() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        let store = StateStore(directory: directory)
        for index in 0..<1_000 {
            let name = "t\(index)"
            try store.recordSucceeded(
                name, Self.record("1", sources: ["src/\(name).txt"], outputs: ["out/\(name)"]), directory: scratch.path,
                statEntries: [(scratch.absolute("src/\(name).txt"), Self.stat(inode: UInt64(index), digest: "src/\(name).txt1")),
                              (scratch.absolute("out/\(name)"), Self.stat(inode: UInt64(index), digest: "out 1"))])
        }
        try store.compact()
        // Per task: 64 bytes for the two digests of its own (whole fingerprint, source), the paths
        // once each, two stats without their digests, and small indices for everything shared.
        let size = ScratchDirectory.read(store.path).count
        #expect(size < 1_000 * 200, "\(size) bytes")
    }

    @Test func appendedRecordsOverrideTheSnapshot() throws {
        let scratch = ScratchDirectory()
        let directory = scratch.absolute(".opsrun")
        let source = scratch.absolute("a.c")
        do {
            let store = StateStore(directory: directory)
            try store.recordSucceeded("a", Self.record("1"), directory: scratch.path, statEntries: [(source, Self.stat(inode: 1))])
            try store.recordSucceeded("b", Self.record("1"), directory: scratch.path)
            try store.compact()
        }
        do {
            let store = StateStore(directory: directory)
            try store.recordSucceeded("a", Self.record("2"), directory: scratch.path, statEntries: [(source, Self.stat(inode: 2))])
            try store.recordStarted("b")
        }
        #expect(Self.eventBytes(directory + "/state") > 0)
        let store = StateStore(directory: directory)
        #expect(store.entry(for: "a") == .succeeded(Self.record("2")))
        #expect(store.entry(for: "b") == .unfinished)
        #expect(store.statEntry(at: source) == Self.stat(inode: 2))
        // A run asks by the project-relative key, without the absolute path.
        #expect(store.statEntry(projectKey: "a.c") == Self.stat(inode: 2))
        #expect(store.allEntries() == ["a": .succeeded(Self.record("2")), "b": .unfinished])
        #expect(store.allStatEntries() == [source: Self.stat(inode: 2)])
    }

    @Test func aCorruptSnapshotIsAWarningAndEmptyState() throws {
        let scratch = ScratchDirectory()
        let (directory, path) = scratch.state
        do {
            let store = StateStore(directory: directory)
            try store.recordSucceeded("a", Self.record("1"))
            try store.compact()
        }
        let good = ScratchDirectory.read(path)
        let warning = "damaged at byte \(StateLog.header.count); starting with no record of previous runs"
        for offset in [StateLog.header.count + 1, StateLog.header.count + 40, good.count - 1] {
            var damaged = good
            damaged[offset] ^= 0x10
            ScratchDirectory.writeFile(path, damaged)
            let store = StateStore(directory: directory)
            #expect(store.diagnostics.map(\.message) == [warning], "byte \(offset)")
            #expect(store.entry(for: "a") == nil && store.allEntries().isEmpty)
        }
        // Cut short: a snapshot is renamed into place whole, so this is damage too, not a torn tail.
        ScratchDirectory.writeFile(path, Array(good.dropLast(3)))
        #expect(StateStore(directory: directory).diagnostics.map(\.message) == [warning])
        // A checksum that matches bytes that are not a snapshot (a digest index out of range).
        var payload = StateSnapshotWriter.payload(
            tasks: ["a": StoredTask(entry: .succeeded(Self.record("1")), directory: "")], stats: [:],
            keys: StatePathKeys(stateDirectory: directory))
        payload[0] = 1  // claims one digest where there are several
        ScratchDirectory.writeFile(path, StateLog.file(snapshot: payload))
        let store = StateStore(directory: directory)
        #expect(store.diagnostics.map(\.message) == [warning])
        #expect(store.allEntries().isEmpty)
    }

    /// The checksum stands between damage and the decoder, but a snapshot that verifies and is
    /// still wrong (a bug, a collision) must only ever be rejected or misread, never crash opsrun.
    @Test func everyDamagedSnapshotIsRejectedOrReadWithoutCrashing() {
        let keys = StatePathKeys(stateDirectory: "/p/.opsrun")
        let payload = StateSnapshotWriter.payload(
            tasks: ["a": StoredTask(entry: .succeeded(Self.record("1")), directory: ""),
                    "b": StoredTask(entry: .succeeded(Self.record("2", sources: ["b.c"])), directory: "sub"),
                    "c": StoredTask(entry: .unfinished, directory: "")],
            stats: ["a.c": Self.stat(inode: 1), "sub/b.c": Self.stat(inode: 2), "/x": Self.stat(inode: 3)], keys: keys)
        var accepted = 0
        for offset in payload.indices {
            for mask: UInt8 in [0x01, 0x80, 0xff] {
                var damaged = payload
                damaged[offset] ^= mask
                damaged.withUnsafeBytes { raw in
                    guard var snapshot = StateSnapshot(raw) else { return }
                    accepted += 1
                    _ = snapshot.allTasks()
                    _ = snapshot.allStats()
                    for name in ["a", "b", "c", "d"] { _ = snapshot.task(named: name) }
                    for key in ["a.c", "sub/b.c", "/x", "b.c"] {
                        var key = key
                        _ = key.withUTF8 { snapshot.statEntry(key: UnsafeRawBufferPointer($0)) }
                    }
                }
            }
        }
        // Most single-byte damage inside digests or paths still parses; the point is it never crashes.
        #expect(accepted > 0)
        payload.withUnsafeBytes { raw in
            var snapshot = StateSnapshot(raw)
            #expect(snapshot?.task(named: "b") == StoredTask(entry: .succeeded(Self.record("2", sources: ["b.c"])), directory: "sub"))
            var key = "sub/b.c"
            #expect(key.withUTF8 { snapshot?.statEntry(key: UnsafeRawBufferPointer($0)) } == Self.stat(inode: 2))
        }
    }

    /// Format 1 had no snapshot; format 2 checked its frames with SHA-256.
    @Test(arguments: [UInt32(1), 2])
    func anOlderFormatIsTreatedAsEmptyAndRewritten(version: UInt32) throws {
        let scratch = ScratchDirectory()
        scratch.makeDirectory(".opsrun")
        var old = ByteWriter(bytes: StateLog.magic)
        old.uint32(version)
        // A format-1 frame: length, payload, checksum (its content no longer matters).
        old.bytes += StateLog.frame(payload: [2, 1, UInt8(ascii: "a")])
        scratch.writeBytes(".opsrun/state", old.bytes)
        let directory = scratch.absolute(".opsrun")
        do {
            let store = StateStore(directory: directory)
            #expect(store.diagnostics.isEmpty)
            #expect(store.allEntries().isEmpty)
            try store.recordSucceeded("b", Self.record("1"))
        }
        #expect(Array(ScratchDirectory.read(directory + "/state").prefix(StateLog.header.count)) == StateLog.header)
        let store = StateStore(directory: directory)
        #expect(store.diagnostics.isEmpty)
        #expect(store.allEntries() == ["b": .succeeded(Self.record("1"))])
    }

    @Test func closingCompactsALongTailOfEvents() throws {
        let scratch = ScratchDirectory()
        let (directory, path) = scratch.state
        do {
            let store = StateStore(directory: directory, compactionMinimumBytes: 4096)
            try store.recordSucceeded("a", Self.record("1"))
            store.close()
        }
        // Under the minimum: left as events.
        #expect(Self.eventBytes(path) > 0)
        let store = StateStore(directory: directory, compactionMinimumBytes: 4096)
        for index in 0..<100 { try store.recordSucceeded("t\(index)", Self.record("\(index)")) }
        #expect(Self.eventBytes(path) > 4096)
        #expect(store.close() == nil)
        #expect(Self.eventBytes(path) == 0)
        let reopened = StateStore(directory: directory)
        #expect(reopened.allEntries().count == 101)
        #expect(reopened.entry(for: "t99") == .succeeded(Self.record("99")))
    }

    /// The hasher asks the store file by file: an entry kept in the snapshot spares reading the file,
    /// for tasks in the project's directory and in a subdirectory alike.
    @Test func statEntriesAreLookedUpLazily() throws {
        let scratch = ScratchDirectory()
        scratch.write("a.c", "real a")
        scratch.write("sub/b.c", "real b")
        let directory = scratch.absolute(".opsrun")
        let planted = ContentDigest.of("planted")
        do {
            let store = StateStore(directory: directory)
            let a = try #require(FileSystem.status(scratch.absolute("a.c")))
            let b = try #require(FileSystem.status(scratch.absolute("sub/b.c")))
            try store.recordSucceeded(
                "a", Self.record("1"), directory: scratch.path,
                statEntries: [(scratch.absolute("a.c"), StatCacheEntry(status: a, digest: planted, isTrusted: true))])
            try store.recordSucceeded(
                "b", Self.record("1", sources: ["b.c"]), directory: scratch.absolute("sub"),
                statEntries: [(scratch.absolute("sub/b.c"), StatCacheEntry(status: b, digest: planted, isTrusted: true))])
            try store.compact()
        }
        let store = StateStore(directory: directory)
        let hasher = FileHasher(persisted: store, now: { Int64.max / 2 })
        #expect(hasher.digest(ofFileAt: scratch.absolute("a.c")) == planted)
        #expect(hasher.digest(ofFileAt: scratch.absolute("sub/b.c")) == planted)
        #expect(hasher.contentReads == 0)
        #expect(hasher.entries.isEmpty)
        // A file the state does not know is read.
        scratch.write("c.c", "c")
        #expect(hasher.digest(ofFileAt: scratch.absolute("c.c")) == .of("c"))
        #expect(hasher.contentReads == 1)
    }

    @Test func keysAreOneToOneWithAbsolutePaths() {
        let keys = StatePathKeys(stateDirectory: "/home/me/project/.opsrun")
        #expect(keys.project == "/home/me/project")
        let cases = [
            ("/home/me/project/src/a.c", "src/a.c"),
            ("/home/me/project//x", "/home/me/project//x"),
            ("/x", "/x"),
            ("/home/me/projectile/a", "/home/me/projectile/a"),
        ]
        for (path, key) in cases {
            #expect(keys.key(of: path) == key)
            #expect(keys.absolute(of: key) == path)
        }
        #expect(keys.directoryKey(of: "/home/me/project") == "")
        #expect(keys.directoryKey(of: "/home/me/project/sub") == "sub")
        #expect(keys.embeddedKey(directory: "sub", path: "b.c") == keys.key(of: "/home/me/project/sub/b.c"))
        #expect(keys.embeddedKey(directory: "", path: "/x") == nil)
        #expect(StatePathKeys(stateDirectory: ".opsrun").project == "")
    }

    @Test func byteKeyIndexFindsEveryKeyAndNothingElse() {
        let keys = (0..<5_000).map { "task-\($0)" }
        var index = ByteKeyIndex(capacity: keys.count)
        for (position, key) in keys.enumerated() {
            var key = key
            key.withUTF8 { index.insert(hash: ByteKeyHash.of(UnsafeRawBufferPointer($0)), value: UInt64(position)) }
        }
        func find(_ wanted: String) -> UInt64? {
            var text = wanted
            return text.withUTF8 { bytes in
                index.first(hash: ByteKeyHash.of(UnsafeRawBufferPointer(bytes))) { keys[Int($0)] == wanted }
            }
        }
        #expect(keys.indices.allSatisfy { find(keys[$0]) == UInt64($0) })
        #expect(find("task-5000") == nil && find("") == nil)
        var pieces = ByteKeyHash()
        Array("src/".utf8).withUnsafeBytes { pieces.add($0) }
        Array("a.c".utf8).withUnsafeBytes { pieces.add($0) }
        #expect(pieces.value == Array("src/a.c".utf8).withUnsafeBytes { ByteKeyHash.of($0) })
    }
}
