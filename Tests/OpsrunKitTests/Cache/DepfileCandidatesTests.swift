import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif
@testable import OpsrunCache
@testable import OpsrunIncremental

/// A depfile task's candidate list (docs/cache.md, "Depfile tasks"): its encoding round-trips, its
/// decoder takes nothing but the exact format within its bounds, adding keeps the newest first
/// within the bounds, and a restore takes the first candidate that matches.
@Suite struct DepfileCandidatesTests {
    static func input(_ path: String, _ text: String) -> FileDigest { FileDigest(path: path, digest: .of(text)) }
    static let one = [input("inc.h", "one"), input("main.c", "main")]
    static let two = [input("inc.h", "two"), input("main.c", "main")]

    @Test func aListRoundTripsNewestFirst() {
        let list = DepfileCandidates([Self.two, Self.one])
        #expect(list.candidates == [Self.two, Self.one])
        #expect(DepfileCandidates(decoding: list.encoded()) == list)
        var added = list
        added.add(Self.one)
        #expect(added.candidates == [Self.one, Self.two])
    }

    @Test func addingKeepsAtMostEightTheNewest() {
        var list = DepfileCandidates()
        for index in 0..<10 { list.add([Self.input("h\(index).h", "\(index)")]) }
        #expect(list.candidates.count == DepfileCandidates.maximumCandidates)
        #expect(list.candidates.first == [Self.input("h9.h", "9")])
        #expect(list.candidates.last == [Self.input("h2.h", "2")])
        #expect(list.merged(with: DepfileCandidates([Self.one])).candidates.first == [Self.input("h9.h", "9")])
    }

    @Test func inputsThatCannotBeACandidateAreNotAdded() {
        var list = DepfileCandidates()
        for inputs in [[], Array(Self.one.reversed()), [Self.input("a", "x"), Self.input("a", "y")], [Self.input("", "x")],
            [Self.input("a\u{0}b", "x")], [Self.input(String(repeating: "p", count: 4097), "x")]]
        {
            list.add(inputs)
        }
        #expect(list.candidates.isEmpty)
    }

    /// One file under several spellings would be read once per spelling, and a pseudo-file under
    /// /proc reads without end: a list naming either is no list (adversarial probe: eight
    /// spellings of /proc/self/pagemap cost a lookup 26 minutes).
    @Test(arguments: [
        "//tmp/big", "/tmp/./big", "/tmp/x/../big", "include//a.h", "include/", "./a.h", "src/../a.h",
        "/proc/self/pagemap", "/sys/kernel/notes", "/dev/zero",
    ])
    func aPathInAnotherSpellingOrUnderProcIsNoCandidate(path: String) {
        #expect(!DepfileCandidates.isValid([Self.input(path, "x")]))
    }

    @Test(arguments: ["include/a.h", "../include/a.h", "../../a.h", "/usr/include/stdio.h", "a.h"])
    func aPathInItsOneSpellingIsACandidate(path: String) {
        #expect(DepfileCandidates.isValid([Self.input(path, "x")]))
    }

    /// Every way a list can be wrong is no list: cut anywhere, a byte more, another magic line,
    /// counts beyond their bounds, a path that is not UTF-8 or holds a NUL, a repeated candidate.
    @Test func theDecoderTakesOnlyTheExactFormat() {
        let bytes = DepfileCandidates([Self.one, Self.two]).encoded()
        for length in 0..<bytes.count { #expect(DepfileCandidates(decoding: Array(bytes.prefix(length))) == nil) }
        #expect(DepfileCandidates(decoding: bytes + [0]) == nil)
        var magic = bytes
        magic[0] = UInt8(ascii: "O")
        #expect(DepfileCandidates(decoding: magic) == nil)
        let header = DepfileCandidates.magic.count
        func replacing(at offset: Int, with values: [UInt8]) -> [UInt8] {
            var changed = bytes
            changed.replaceSubrange(offset..<offset + values.count, with: values)
            return changed
        }
        // Candidates: 0, 9, 2^32 - 1.
        for count: [UInt8] in [[0, 0, 0, 0], [9, 0, 0, 0], [255, 255, 255, 255]] {
            #expect(DepfileCandidates(decoding: replacing(at: header, with: count)) == nil)
        }
        // The first candidate's input count, and its first path's length, out of bounds.
        #expect(DepfileCandidates(decoding: replacing(at: header + 4, with: [0, 0, 0, 0])) == nil)
        #expect(DepfileCandidates(decoding: replacing(at: header + 8, with: [0, 0x20, 0, 0])) == nil)
        // The first path (`inc.h`) with a byte that is not UTF-8, then with a NUL.
        #expect(DepfileCandidates(decoding: replacing(at: header + 12, with: [0xff])) == nil)
        #expect(DepfileCandidates(decoding: replacing(at: header + 12, with: [0])) == nil)
        let repeated = Array(DepfileCandidates([Self.one]).encoded().dropFirst(header + 4))
        #expect(DepfileCandidates(decoding: DepfileCandidates.magic + [2, 0, 0, 0] + repeated + repeated) == nil)
    }

    @Test func aListLargerThanTheLimitIsRefusedUnread() {
        let big = [UInt8](repeating: 0, count: Int(DepfileCandidates.sizeLimit) + 1)
        #expect(DepfileCandidates(decoding: DepfileCandidates.magic + big) == nil)
    }

    /// Stored under the key without discovered inputs, the candidate whose inputs match is the one
    /// restored, and the others' entries are never touched.
    @Test func aRestoreTakesTheFirstCandidateThatMatches() throws {
        let scratch = ScratchDirectory()
        mkdir(scratch.absolute("b"), 0o755)
        let cache = OutputCache(directory: scratch.absolute("cache"), sizeLimit: 1 << 30)
        let key = CacheKey(task: "compile", definition: .of("compile"), outputs: ["main.o"])
        for (inputs, object) in [(Self.one, "object one"), (Self.two, "object two")] {
            scratch.write("a/main.o", object)
            #expect(cache.store(
                candidateOf: key, inputs: inputs, directory: scratch.absolute("a"),
                files: [("main.o", Hex.sha256(Array(object.utf8)))], standardOutput: [], standardError: []))
        }
        #expect(cache.local.entry(key) != nil)
        let place = OutputPlace(projectRoot: scratch.path, taskDirectory: scratch.absolute("b"), outputs: ["main.o"])
        var asked: [[FileDigest]] = []
        let (outcome, inputs) = cache.restore(candidatesOf: key, into: place) { candidate in
            asked.append(candidate)
            return candidate == Self.one
        }
        #expect(outcome.restored != nil)
        #expect(inputs == Self.one)
        // Newest first: `two` was asked, did not match, then `one`.
        #expect(asked == [Self.two, Self.one])
        #expect(scratch.bytes("b/main.o") == Array("object one".utf8))
        let none = cache.restore(candidatesOf: key, into: place) { _ in false }
        #expect(none.outcome.restored == nil)
    }
}
