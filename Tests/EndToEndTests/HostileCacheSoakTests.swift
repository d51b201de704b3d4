import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 28's soak: 200 runs, each a fresh clone of one project, against a server that answers
/// crafted entries at random (paths it may not write, lying sizes, endless or garbage bodies,
/// blobs that are not their digest's) and a local cache corrupted at random between runs (blobs
/// emptied, cut, flipped or swapped, entries cut or swapped between tasks). Every run must exit 0
/// with outputs byte for byte those of a `--no-cache` run, and nothing outside the project (a
/// sentinel directory beside it, reachable through a link in it) may change.
/// Slow (a few minutes), so opt-in: `OPSRUN_SOAK=1 swift test --filter HostileCacheSoakTests`.
@Suite struct HostileCacheSoakTests {
    static let manifest = """
        default: all
        tasks:
          all:
            deps: [lib, docs, big]
          lib:
            sources: [src/a.c]
            outputs: [out/lib.txt]
            run: mkdir -p out && cat src/a.c src/a.c > out/lib.txt
          docs:
            sources: [src/a.c]
            outputs: [out/docs/*.txt]
            run: mkdir -p out/docs && cp src/a.c out/docs/a.txt && cp src/a.c out/docs/b.txt
          big:
            sources: [src/big.bin]
            outputs: [out/big.bin]
            run: mkdir -p out && cp src/big.bin out/big.bin && chmod 755 out/big.bin
        """
    static let outputs = ["out/lib.txt", "out/docs/a.txt", "out/docs/b.txt", "out/big.bin"]

    /// The sources of one of a few versions of the project, so that keys repeat across runs.
    static func files(version: Int) -> [String: String] {
        [
            "src/a.c": "int version = \(version);\n",
            // Larger than an entry holds inline: a blob of its own.
            "src/big.bin": String(repeating: "block \(version) ", count: 12_000),
        ]
    }

    /// What a hostile server answers for one `ac/` request (the blobs it names come from `blobs`).
    static func craftedAnswer(
        _ random: inout SeededRandom, version: Int, outside: String, blobs: inout [String: [UInt8]]
    ) -> HostileCacheServer.Answer {
        let text = "int version = \(version);\n"
        let honest = [CraftedEntry.File("out/lib.txt", text + text)]
        var bad: CraftedEntry.File
        switch Int.random(in: 0..<12, using: &random) {
        case 0: bad = CraftedEntry.File("link/evil.txt", "evil\n")
        case 1: bad = CraftedEntry.File("../\(UUID().uuidString).evil", "evil\n")
        case 2: bad = CraftedEntry.File("src/a.c", "evil\n")
        case 3: bad = CraftedEntry.File("Tasksfile.yaml", "evil\n")
        case 4: bad = CraftedEntry.File(".git/hooks/pre-commit", "evil\n", mode: 0o4755)
        case 5: bad = CraftedEntry.File(outside + "/evil.txt", "evil\n")
        case 6:
            // A size of 0 under another digest: the lie of an emptied blob.
            bad = CraftedEntry.File("out/lib.txt", "")
            bad.hash = sha256Hex(Array("evil\n".utf8))
            return .body(CraftedEntry(files: [bad]).bytes)
        case 7: return .endless(announcing: Bool.random(using: &random) ? nil : 1 << 40)
        case 8: return .body((0..<Int.random(in: 0..<200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 9:
            // An entry cut short.
            let bytes = CraftedEntry(files: honest).bytes
            return .body(Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random))))
        case 10:
            // A blob the server holds under a digest that is not its own.
            var file = CraftedEntry.File("out/lib.txt", text + text)
            file.inline = false
            blobs[sha256Hex(file.contents)] = Array("evil evil evil\n".utf8)
            return .body(CraftedEntry(files: [file]).bytes)
        default: return .status([404, 500, 403][Int.random(in: 0..<3, using: &random)])
        }
        return .body(CraftedEntry(files: honest + [bad]).bytes)
    }

    /// Damages one file of the local cache at random.
    static func corrupt(_ cache: String, _ random: inout SeededRandom) {
        let kind = ["ac", "cas"][Int.random(in: 0..<2, using: &random)]
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: cache + "/" + kind), !names.isEmpty else {
            return
        }
        let path = cache + "/" + kind + "/" + names[Int.random(in: 0..<names.count, using: &random)]
        guard var bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) else { return }
        switch Int.random(in: 0..<5, using: &random) {
        case 0: bytes = []
        case 1: bytes = Array(bytes.prefix(bytes.count / 2))
        case 2:
            if !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 0x20 }
        case 3:
            // Another file's bytes under this name (an entry of another task, another blob).
            let other = cache + "/" + kind + "/" + names[Int.random(in: 0..<names.count, using: &random)]
            bytes = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: other)))) ?? []
        default:
            unlink(path)
            return
        }
        try? Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test(.enabled(if: ServiceSoakTests.enabled))
    func hostileServersAndACorruptedCacheNeverMakeAWrongOutputOrWriteOutside() throws {
        var random = SeededRandom()
        print("HostileCacheSoakTests: \(SeededRandom.replay)")
        let versions = 3
        // The outputs of each version, made without the cache.
        var expected: [[String: Data]] = []
        for version in 0..<versions {
            let reference = try TemporaryProject(Self.manifest, files: Self.files(version: version))
            try #require(try reference.run("--no-cache").status == 0)
            expected.append(try Dictionary(uniqueKeysWithValues: Self.outputs.map {
                ($0, try Data(contentsOf: URL(fileURLWithPath: reference.path($0))))
            }))
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-soak-\(UUID().uuidString)").path
        let outside = work + "/outside"
        let cache = work + "/cache"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try "sentinel\n".write(toFile: outside + "/sentinel.txt", atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let sentinel = try FileTree(outside)

        let state = SoakServerState()
        let server = try HostileCacheServer { _, path in state.answer(path) }
        defer { server.stop() }

        var (restored, refused, warned, wrong) = (0, 0, 0, 0)
        let runs = 200
        for round in 1...runs {
            let version = Int.random(in: 0..<versions, using: &random)
            var blobs: [String: [UInt8]] = [:]
            var answers: [HostileCacheServer.Answer] = []
            for _ in 0..<4 {
                answers.append(Self.craftedAnswer(&random, version: version, outside: outside, blobs: &blobs))
            }
            state.set(answers: answers, blobs: blobs)
            let project = try TemporaryProject(Self.manifest, files: Self.files(version: version))
            try FileManager.default.createSymbolicLink(atPath: project.path("link"), withDestinationPath: outside)
            try FileManager.default.createDirectory(atPath: project.path(".git/hooks"), withIntermediateDirectories: true)
            let before = try FileTree(project.url.path)
            let parent = project.url.deletingLastPathComponent().path
            let evilBefore = try FileManager.default.contentsOfDirectory(atPath: parent).filter { $0.hasSuffix(".evil") }

            // Half the runs ask the server; every run uses the local cache, corrupted at random.
            var arguments: [String] = []
            if Bool.random(using: &random) { arguments = ["--remote-cache", server.url] }
            let result = try OpsrunBinary.run(
                arguments, in: project.url, environment: ["OPSRUN_CACHE_DIR": cache, "OPSRUN_REMOTE_CACHE_TIMEOUT": "3s"])
            let context = "round \(round), \(SeededRandom.replay)\n\(result.stdout)\(result.stderr)"
            #expect(result.status == 0, "\(context)")
            for (path, bytes) in expected[version] {
                let got = try? Data(contentsOf: URL(fileURLWithPath: project.path(path)))
                if got != bytes { wrong += 1 }
                #expect(got == bytes, "\(path): \(context)")
            }
            let changed = try FileTree(project.url.path).changes(since: before)
                .subtracting(Self.outputs + ["out", "out/docs", ".opsrun"])
            #expect(changed == [], "\(context)")
            #expect(try FileTree(outside).files == sentinel.files, "\(context)")
            let evilAfter = try FileManager.default.contentsOfDirectory(atPath: parent).filter { $0.hasSuffix(".evil") }
            #expect(Set(evilAfter).subtracting(evilBefore).isEmpty, "\(context)")
            if let summary = result.stdout.split(separator: "\n").last, let count = summary.split(separator: " ").dropLast().last.flatMap({ Int($0) }),
                summary.hasSuffix("restored")
            {
                restored += count
            }
            refused += result.stderr.components(separatedBy: "warning: cache entry for").count - 1
            warned += result.stderr.components(separatedBy: "warning: remote cache").count - 1
            for _ in 0..<Int.random(in: 0...3, using: &random) { Self.corrupt(cache, &random) }
        }
        print("HostileCacheSoakTests: \(runs) runs, \(restored) tasks restored, \(refused) entries refused, \(warned) server warnings, \(wrong) wrong outputs")
    }
}

/// What the soak's server answers this round: `ac/` requests take the answers in turn, `cas/` ones
/// the blobs of this round (else 404).
final class SoakServerState: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [HostileCacheServer.Answer] = []
    private var next = 0
    private var blobs: [String: [UInt8]] = [:]

    func set(answers: [HostileCacheServer.Answer], blobs: [String: [UInt8]]) {
        lock.withLock {
            self.answers = answers
            self.blobs = blobs
            next = 0
        }
    }

    func answer(_ path: String) -> HostileCacheServer.Answer {
        lock.withLock {
            if path.hasPrefix("cas/") { return blobs[String(path.dropFirst(4))].map { .body($0) } ?? .status(404) }
            guard !answers.isEmpty else { return .status(404) }
            defer { next += 1 }
            return answers[next % answers.count]
        }
    }
}
