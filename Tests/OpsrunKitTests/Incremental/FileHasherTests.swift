@testable import OpsrunKit
import Testing
@testable import OpsrunIncremental

@Suite struct FileHasherTests {
    /// A clock well past every file written by the test, so its stats are safely old (not racy).
    static func later() -> Int64 { FileSystem.realtimeNanoseconds() + 60_000_000_000 }

    @Test func digestIsSHA256OfTheContent() {
        let scratch = ScratchDirectory()
        scratch.write("abc.txt", "abc")
        scratch.write("empty", "")
        let hasher = FileHasher()
        #expect(hasher.digest(ofFileAt: scratch.absolute("abc.txt"))?.description
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hasher.digest(ofFileAt: scratch.absolute("empty"))?.description
            == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func largeFilesAreReadInChunks() {
        let scratch = ScratchDirectory()
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        scratch.writeBytes("big", bytes)
        #expect(FileHasher().digest(ofFileAt: scratch.absolute("big")) == ContentDigest.of(bytes))
    }

    /// A signal while a large file is read: the read stops between chunks, and the file's digest
    /// matches nothing and is remembered nowhere; so does every file read after.
    @Test func aReadAskedToStopGivesWayBetweenChunks() {
        let scratch = ScratchDirectory()
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        scratch.writeBytes("big", bytes)
        scratch.write("small", "s")
        let hasher = FileHasher(now: Self.later)
        var asked = 0
        hasher.shouldStop = {
            asked += 1
            return asked > 2
        }
        let stopped = hasher.digest(ofFileAt: scratch.absolute("big"))
        #expect(stopped != nil && stopped != ContentDigest.of(bytes))
        #expect(hasher.wasStopped)
        #expect(asked == 3)
        #expect(hasher.digest(ofFileAt: scratch.absolute("small")) != ContentDigest.of("s"))
        #expect(hasher.entries.isEmpty && hasher.takeNewEntries().isEmpty)
    }

    @Test func missingIsNilAndADirectoryIsOnlyThere() {
        let scratch = ScratchDirectory()
        scratch.makeDirectory("dir")
        let hasher = FileHasher()
        #expect(hasher.digest(ofFileAt: scratch.absolute("none")) == nil)
        #expect(hasher.digest(ofFileAt: scratch.absolute("dir")) == .directory)
        #expect(hasher.contentReads == 0)
    }

    /// A no-op run asks by the file's key in the project (`src/a.c`), not its absolute path: the
    /// stat cache must answer the same way, from the snapshot and from events after it.
    @Test func theStateFindsAFileByItsProjectKeyWithoutReadingIt() throws {
        let scratch = ScratchDirectory()
        scratch.write("src/a.c", "int a;")
        scratch.write("src/b.c", "int b;")
        let state = scratch.absolute(".opsrun")
        let learning = FileHasher(now: Self.later)
        let a = learning.digest(ofFileAt: scratch.absolute("src/a.c"))
        let b = learning.digest(ofFileAt: scratch.absolute("src/b.c"))
        let store = StateStore(directory: state)
        try store.recordStatEntries(learning.takeNewEntries())
        try store.compact()
        _ = store.close()
        // One entry in the snapshot, one in an event after it.
        scratch.write("src/b.c", "int b = 2;")
        let relearning = FileHasher(now: Self.later)
        let b2 = relearning.digest(ofFileAt: scratch.absolute("src/b.c"))
        let appending = StateStore(directory: state)
        try appending.recordStatEntries(relearning.takeNewEntries())
        _ = appending.close()

        let reopened = StateStore(directory: state)
        let base = FileSystem.openDirectory(scratch.path)
        defer { FileSystem.closeDirectory(base) }
        let hasher = FileHasher(persisted: reopened, now: Self.later)
        for (key, digest) in [("src/a.c", a), ("src/b.c", b2)] {
            let found = hasher.digest(
                ofFileAt: scratch.absolute(key), projectKey: key, opening: key, in: base,
                status: FileSystem.status(key, in: base))
            #expect(found == digest)
        }
        #expect(b2 != b)
        #expect(hasher.contentReads == 0)
    }

    @Test func anUnchangedSafelyOldFileIsNotReadAgain() {
        let scratch = ScratchDirectory()
        scratch.write("a.c", "int a;")
        let hasher = FileHasher(now: Self.later)
        let first = hasher.digest(ofFileAt: scratch.absolute("a.c"))
        #expect(hasher.contentReads == 1)
        #expect(hasher.digest(ofFileAt: scratch.absolute("a.c")) == first)
        #expect(hasher.contentReads == 1)
        #expect(hasher.entries[scratch.absolute("a.c")]?.isTrusted == true)
    }

    @Test func aRacyFileIsReadEveryTime() {
        let scratch = ScratchDirectory()
        scratch.write("a.c", "int a;")
        let hasher = FileHasher()  // the real clock: the file was written just now
        _ = hasher.digest(ofFileAt: scratch.absolute("a.c"))
        _ = hasher.digest(ofFileAt: scratch.absolute("a.c"))
        #expect(hasher.contentReads == 2)
        #expect(hasher.entries[scratch.absolute("a.c")]?.isTrusted == false)
        #expect(hasher.takeNewEntries().isEmpty)
    }

    @Test func aChangedFileIsReadAgain() {
        let scratch = ScratchDirectory()
        scratch.write("a.c", "int a;")
        let hasher = FileHasher(now: Self.later)
        let before = hasher.digest(ofFileAt: scratch.absolute("a.c"))
        scratch.write("a.c", "int b;")
        #expect(hasher.digest(ofFileAt: scratch.absolute("a.c")) == ContentDigest.of("int b;"))
        #expect(before == ContentDigest.of("int a;"))
        #expect(hasher.contentReads == 2)
    }

    /// The cache is planted with a digest the file does not have: while it is trusted and the stat
    /// is identical, that digest is believed (the file is not read); an untrusted (racy) entry, or any
    /// difference in size, mtime, ctime or inode, makes the hasher read the real content.
    @Test func aTrustedEntryStandsForTheContentUntilAnyStatFieldDiffers() throws {
        let scratch = ScratchDirectory()
        scratch.write("a.c", "real")
        let path = scratch.absolute("a.c")
        let status = try #require(FileSystem.status(path))
        let planted = ContentDigest.of("planted")
        func digest(trusted: Bool, _ change: (inout FileStatus) -> Void = { _ in }) -> (ContentDigest?, Int) {
            var recorded = status
            change(&recorded)
            let hasher = FileHasher(
                entries: [path: StatCacheEntry(status: recorded, digest: planted, isTrusted: trusted)], now: Self.later)
            return (hasher.digest(ofFileAt: path), hasher.contentReads)
        }
        let real = ContentDigest.of("real")
        #expect(digest(trusted: true) == (planted, 0))
        #expect(digest(trusted: false) == (real, 1))
        #expect(digest(trusted: true) { $0.size += 1 } == (real, 1))
        #expect(digest(trusted: true) { $0.modificationNanoseconds += 1 } == (real, 1))
        #expect(digest(trusted: true) { $0.changeNanoseconds += 1 } == (real, 1))
        #expect(digest(trusted: true) { $0.inode += 1 } == (real, 1))
    }

    @Test func trustStartsTwoSecondsAfterTheLastChange() throws {
        let scratch = ScratchDirectory()
        scratch.write("a.c", "x")
        let path = scratch.absolute("a.c")
        let status = try #require(FileSystem.status(path))
        let lastChange = max(status.modificationNanoseconds, status.changeNanoseconds)
        let exactly = FileHasher(now: { lastChange + 2_000_000_000 })
        _ = exactly.digest(ofFileAt: path)
        #expect(exactly.entries[path]?.isTrusted == true)
        #expect(exactly.takeNewEntries().map(\.path) == [path])
        #expect(exactly.takeNewEntries().isEmpty)
        let almost = FileHasher(now: { lastChange + 1_999_999_999 })
        _ = almost.digest(ofFileAt: path)
        #expect(almost.entries[path]?.isTrusted == false)
    }

    /// A file that holds more than its size says (`/proc/self/pagemap`: 0 bytes, 256 GiB read) is
    /// not read to its end: its digest matches nothing, at once (adversarial probe: 3 minutes).
    @Test func aFileHoldingMoreThanItsSizeSaysIsNotReadToItsEnd() {
        let hasher = FileHasher()
        let digest = hasher.digest(ofFileAt: "/proc/self/pagemap")
        #expect(digest != nil && digest != ContentDigest.of(""))
        #expect(hasher.digest(ofFileAt: "/proc/self/pagemap") != digest, "a digest nothing matches, not even itself")
    }
}
