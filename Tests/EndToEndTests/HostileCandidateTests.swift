import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/cache.md, "Depfile tasks": the candidate list a server hands back for a compile's key is
/// hostile input. Whatever it says (a path outside the project, a named pipe, /dev/zero, garbage,
/// an endless body, too many candidates), opsrun never hangs, writes nothing outside its outputs,
/// and either restores an entry whose listed inputs all have the recorded content now, or runs
/// the task.
@Suite struct HostileCandidateTests {
    static let manifest = """
        default: build
        tasks:
          build:
            sources: [main.c]
            outputs: [out/main.o]
            depfile: out/main.d
            run: |
              echo build >> ran.log && mkdir -p out && cat main.c inc.h > out/main.o && printf 'out/main.o: main.c inc.h\\n' > out/main.d
        """
    static let main = "main\n"
    static let header = "inc\n"

    /// A project and a directory beside it (`outside`) holding a sentinel, a header, a named pipe
    /// and a directory, which nothing opsrun does may change.
    final class Sandbox {
        let project: TemporaryProject
        let outside: String
        var outsideName: String { URL(fileURLWithPath: outside).lastPathComponent }

        init() throws {
            project = try TemporaryProject(HostileCandidateTests.manifest, files: ["main.c": HostileCandidateTests.main, "inc.h": HostileCandidateTests.header])
            outside = project.url.path + ".outside"
            try FileManager.default.createDirectory(atPath: outside + "/dir", withIntermediateDirectories: true)
            try "sentinel\n".write(toFile: outside + "/sentinel.txt", atomically: true, encoding: .utf8)
            try "outside\n".write(toFile: outside + "/outside.h", atomically: true, encoding: .utf8)
            #expect(mkfifo(outside + "/fifo.h", 0o644) == 0)
            project.waitUntilFileTimesArePast()
        }

        func run(_ server: HostileCacheServer, _ arguments: String...) throws -> OpsrunBinary.Result {
            try OpsrunBinary.run(
                ["--remote-cache", server.url, "--remote-cache-read-only"] + arguments, in: project.url,
                environment: ["OPSRUN_REMOTE_CACHE_TIMEOUT": "5s"])
        }

        func ran() -> [String] {
            let path = project.path("ran.log")
            defer { try? FileManager.default.removeItem(atPath: path) }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
            return text.split(separator: "\n").map(String.init)
        }

        /// What is beside the project, unchanged: nothing added, the sentinel and header as made.
        func outsideIsUntouched() -> Bool {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: outside))?.sorted()
            return names == ["dir", "fifo.h", "outside.h", "sentinel.txt"]
                && (try? String(contentsOfFile: outside + "/sentinel.txt", encoding: .utf8)) == "sentinel\n"
                && (try? String(contentsOfFile: outside + "/outside.h", encoding: .utf8)) == "outside\n"
                && (try? FileManager.default.contentsOfDirectory(atPath: outside + "/dir")) == []
        }

        deinit { try? FileManager.default.removeItem(atPath: outside) }
    }

    /// A server answering the compile's first `ac/` request (its key without discovered inputs)
    /// with a candidate list, every later `ac/` one (an entry chosen by a candidate) with
    /// `result`, and `cas/` with the list's bytes (or `listAnswer`).
    final class Script: @unchecked Sendable {
        let list: [UInt8]
        let entry: CraftedEntry
        let listAnswer: HostileCacheServer.Answer?
        let entryAnswer: HostileCacheServer.Answer?
        let result: HostileCacheServer.Answer
        private let lock = NSLock()
        private var entriesAsked = 0

        init(
            list: [UInt8], claimedSize: Int? = nil, listAnswer: HostileCacheServer.Answer? = nil,
            entryAnswer: HostileCacheServer.Answer? = nil, result: HostileCacheServer.Answer = .status(404)
        ) {
            self.list = list
            var file = CraftedEntry.File(CraftedCandidates.path, "")
            file.contents = list
            file.inline = false
            file.size = claimedSize
            entry = CraftedEntry(files: [file])
            self.listAnswer = listAnswer
            self.entryAnswer = entryAnswer
            self.result = result
        }

        func answer(_ path: String) -> HostileCacheServer.Answer {
            if path.hasPrefix("cas/") { return listAnswer ?? .body(list) }
            guard path.hasPrefix("ac/") else { return .status(404) }
            let first = lock.withLock { () -> Bool in
                entriesAsked += 1
                return entriesAsked == 1
            }
            return first ? entryAnswer ?? .body(entry.bytes) : result
        }
    }

    static func sha(_ text: String) -> String { sha256Hex(Array(text.utf8)) }
    static let matching: [(path: String, hash: String)] = [("inc.h", sha(header)), ("main.c", sha(main))]

    /// How many `ac/` entries opsrun asked for: 2 when a candidate matched (its entry was asked).
    static func entriesAsked(_ server: HostileCacheServer) -> Int { server.asked.filter { $0.hasPrefix("GET ac/") }.count }

    /// A list whose candidate has the project's inputs makes opsrun ask for that candidate's entry:
    /// the control for the tests below, which would pass against a list opsrun never reads.
    @Test func aListedCandidateWithTheInputsContentNowIsTheOneAskedFor() throws {
        let sandbox = try Sandbox()
        let script = Script(list: CraftedCandidates.bytes([Self.matching]))
        let server = try HostileCacheServer { _, path in script.answer(path) }
        defer { server.stop() }
        let result = try sandbox.run(server)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.entriesAsked(server) == 2, "\(server.asked)")
        #expect(sandbox.ran() == ["build"])
    }

    /// A listed input may be outside the project (a system header): it is only read. The entry
    /// it leads to is restored, and the state records it, so that its change reruns the task.
    @Test func aCandidateListingAFileOutsideTheProjectRestoresAndTracksIt() throws {
        let sandbox = try Sandbox()
        let inputs = [("../\(sandbox.outsideName)/outside.h", Self.sha("outside\n")), ("main.c", Self.sha(Self.main))]
        let cached = CraftedEntry(files: [CraftedEntry.File("out/main.o", "cached\n")])
        let script = Script(list: CraftedCandidates.bytes([inputs]), result: .body(cached.bytes))
        let server = try HostileCacheServer { _, path in script.answer(path) }
        defer { server.stop() }
        let result = try sandbox.run(server)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("0 succeeded, 1 restored\n"), "\(result.stdout)\(result.stderr)")
        #expect(sandbox.ran() == [])
        #expect(try String(contentsOfFile: sandbox.project.path("out/main.o"), encoding: .utf8) == "cached\n")
        #expect(sandbox.outsideIsUntouched())

        try "changed\n".write(toFile: sandbox.outside + "/outside.h", atomically: false, encoding: .utf8)
        let again = try OpsrunBinary.run(["--explain"], in: sandbox.project.url)
        #expect(again.stdout.contains("build runs: source ../\(sandbox.outsideName)/outside.h changed\n"), "\(again.stdout)")
        #expect(sandbox.ran() == ["build"])
    }

    /// Lists no candidate of which may match: each makes the task run, reading nothing from a
    /// pipe or a device and holding no oversize answer.
    static let hostile: [(name: String, script: @Sendable (Sandbox) -> Script)] = [
        ("a named pipe", { Script(list: CraftedCandidates.bytes([[($0.outside + "/fifo.h", sha("")), ("main.c", sha(main))]])) }),
        ("/dev/zero", { _ in Script(list: CraftedCandidates.bytes([[("/dev/zero", sha("")), ("main.c", sha(main))]])) }),
        ("a directory", { Script(list: CraftedCandidates.bytes([[($0.outside + "/dir", sha("")), ("main.c", sha(main))]])) }),
        ("a missing file", { _ in Script(list: CraftedCandidates.bytes([[("gone.h", sha("")), ("main.c", sha(main))]])) }),
        ("garbage", { _ in Script(list: Array("\u{01}garbage, not a candidate list".utf8)) }),
        ("the list cut short", { _ in Script(list: Array(CraftedCandidates.bytes([matching]).dropLast())) }),
        ("bytes after the list", { _ in Script(list: CraftedCandidates.bytes([matching]) + [0]) }),
        ("inputs out of order", { _ in Script(list: CraftedCandidates.bytes([Array(matching.reversed())])) }),
        ("too many candidates", { _ in Script(list: CraftedCandidates.bytes(Array(repeating: matching, count: 9))) }),
        ("an endless list", { _ in Script(list: CraftedCandidates.bytes([matching]), listAnswer: .endless(announcing: nil)) }),
        ("an endless entry", { _ in Script(list: CraftedCandidates.bytes([matching]), entryAnswer: .endless(announcing: nil)) }),
        ("a list larger than a list may be", { _ in Script(list: CraftedCandidates.bytes([matching]), claimedSize: 64 << 20) }),
    ]

    @Test(arguments: 0..<hostile.count)
    func aHostileCandidateListMakesTheTaskRunAndWritesNothingElse(_ index: Int) throws {
        let sandbox = try Sandbox()
        let script = Self.hostile[index].script(sandbox)
        let server = try HostileCacheServer { _, path in script.answer(path) }
        defer { server.stop() }
        let before = try FileTree(sandbox.project.url.path)
        let result = try sandbox.run(server)
        #expect(result.status == 0, "\(Self.hostile[index].name): \(result.stderr)")
        #expect(sandbox.ran() == ["build"], "\(Self.hostile[index].name)")
        #expect(Self.entriesAsked(server) == 1, "\(Self.hostile[index].name): \(server.asked)")
        #expect(try String(contentsOfFile: sandbox.project.path("out/main.o"), encoding: .utf8) == Self.main + Self.header)
        let after = try FileTree(sandbox.project.url.path)
        #expect(after.changes(since: before).subtracting([".opsrun", "out", "out/main.o", "out/main.d"]) == [])
        #expect(sandbox.outsideIsUntouched())
        if Self.hostile[index].name == "a list larger than a list may be" {
            #expect(!server.asked.contains { $0.hasPrefix("GET cas/") }, "\(server.asked)")
        }
    }
}

/// A candidate list as docs/cache.md spells it, encoded by hand (the tests cannot see opsrun's
/// types): the magic line, then little-endian 32-bit counts and lengths, each input's path and
/// the 32 bytes of its SHA-256.
enum CraftedCandidates {
    static let path = ".opsrun-depfile-candidates"
    static let magic = Array("opsrun depfile candidates 1\n".utf8)

    static func bytes(_ candidates: [[(path: String, hash: String)]]) -> [UInt8] {
        var result = magic
        func count(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { result += $0 } }
        count(candidates.count)
        for candidate in candidates {
            count(candidate.count)
            for input in candidate {
                count(input.path.utf8.count)
                result += Array(input.path.utf8)
                var hex = Substring(input.hash)
                while !hex.isEmpty {
                    result.append(UInt8(hex.prefix(2), radix: 16)!)
                    hex = hex.dropFirst(2)
                }
            }
        }
        return result
    }
}
