import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/cache.md, "What a cache entry may do", through the real binary: whatever a server or
/// the cache directory hands back is hostile until checked. A restore writes only the task's
/// declared outputs, inside the project, through no symbolic link, with no mode beyond 0755; any
/// other path refuses the whole entry (one warning, the task runs).
@Suite struct HostileCacheTests {
    static let manifest = """
        default: build
        tasks:
          build:
            sources: [src/main.c]
            outputs: [out/app, out/gen/*.txt]
            run: echo build >> ran.log && mkdir -p out && cp src/main.c out/app
        """

    /// A project whose `out/gen` is a symbolic link to a directory beside it (`outside`), which
    /// nothing opsrun does may change.
    final class Sandbox {
        let project: TemporaryProject
        let outside: String

        init(manifest: String = HostileCacheTests.manifest) throws {
            project = try TemporaryProject(manifest, files: ["src/main.c": "int main() { return 0; }\n"])
            outside = project.url.path + ".outside"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try "sentinel\n".write(toFile: outside + "/sentinel.txt", atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: project.path("out"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: project.path("out/gen"), withDestinationPath: outside)
            try FileManager.default.createDirectory(atPath: project.path(".git/hooks"), withIntermediateDirectories: true)
        }

        func run(_ server: HostileCacheServer, _ arguments: String...) throws -> OpsrunBinary.Result {
            try OpsrunBinary.run(["--remote-cache", server.url] + arguments, in: project.url)
        }

        func ran() -> [String] {
            let path = project.path("ran.log")
            defer { try? FileManager.default.removeItem(atPath: path) }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
            return text.split(separator: "\n").map(String.init)
        }

        deinit { try? FileManager.default.removeItem(atPath: outside) }
    }

    /// Where an entry may not write, with what the warning says of it.
    static let forbidden: [(path: @Sendable (Sandbox) -> String, mode: UInt32, reason: @Sendable (Sandbox) -> String)] = [
        ({ _ in "out/gen/evil.txt" }, 0o644, { _ in "would write 'out/gen/evil.txt' through the symbolic link 'out/gen'" }),
        ({ _ in "../evil.txt" }, 0o644, { _ in "names '../evil.txt', which is outside the project" }),
        ({ _ in "src/main.c" }, 0o644, { _ in "names 'src/main.c', which is not one of its outputs" }),
        ({ _ in "Tasksfile.yaml" }, 0o644, { _ in "names 'Tasksfile.yaml', which is not one of its outputs" }),
        ({ _ in ".git/hooks/pre-commit" }, 0o4755, { _ in "names '.git/hooks/pre-commit', which is not one of its outputs" }),
        ({ $0.outside + "/evil.txt" }, 0o644, { "names '\($0.outside)/evil.txt', which is not a relative path" }),
    ]

    @Test(arguments: 0..<forbidden.count)
    func anEntryNamingAPathItMayNotWriteIsRefusedWholeAndTheTaskRuns(_ index: Int) throws {
        let sandbox = try Sandbox()
        let (path, mode, reason) = Self.forbidden[index]
        let entry = CraftedEntry(files: [
            CraftedEntry.File("out/app", "cached\n", mode: 0o755), CraftedEntry.File(path(sandbox), "evil\n", mode: mode),
        ])
        let server = try HostileCacheServer { _, path in path.hasPrefix("ac/") ? .body(entry.bytes) : .status(404) }
        defer { server.stop() }
        let before = try FileTree(sandbox.project.url.path)
        let parentBefore = try FileManager.default.contentsOfDirectory(atPath: sandbox.project.url.deletingLastPathComponent().path)

        let result = try sandbox.run(server, "--remote-cache-read-only")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.ran() == ["build"])
        #expect(try String(contentsOfFile: sandbox.project.path("out/app"), encoding: .utf8) == "int main() { return 0; }\n")
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings == ["warning: cache entry for 'build' \(reason(sandbox)); not restored"], "\(result.stderr)")
        // Nothing but the task's own output (and opsrun's state) changed, in the project or beside it.
        let after = try FileTree(sandbox.project.url.path)
        #expect(after.changes(since: before).subtracting(["out/app", ".opsrun"]) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.outside) == ["sentinel.txt"])
        let parentAfter = try FileManager.default.contentsOfDirectory(atPath: sandbox.project.url.deletingLastPathComponent().path)
        #expect(!Set(parentAfter).subtracting(parentBefore).contains("evil.txt"))
    }

    @Test func aRestoredOutputHasNoPermissionBeyond0755() throws {
        let sandbox = try Sandbox()
        let entry = CraftedEntry(files: [CraftedEntry.File("out/app", "cached\n", mode: 0o6777)])
        let server = try HostileCacheServer { _, path in path.hasPrefix("ac/") ? .body(entry.bytes) : .status(404) }
        defer { server.stop() }
        let result = try sandbox.run(server, "--remote-cache-read-only")
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("0 succeeded, 1 restored\n"), "\(result.stdout)\(result.stderr)")
        var info = stat()
        lstat(sandbox.project.path("out/app"), &info)
        #expect(info.st_mode & 0o7777 == 0o755)
    }

    /// An output directory holds exactly what the entry holds: a file left in it from before is
    /// removed, and a link in it is removed, not followed.
    @Test func aRestoredOutputDirectoryHoldsExactlyTheEntrysFiles() throws {
        let sandbox = try Sandbox(manifest: """
            default: build
            tasks:
              build:
                sources: [src/main.c]
                outputs: [dist]
                run: echo build >> ran.log && mkdir -p dist && cp src/main.c dist/a.txt
            """)
        try FileManager.default.createDirectory(atPath: sandbox.project.path("dist/old"), withIntermediateDirectories: true)
        try "stale\n".write(toFile: sandbox.project.path("dist/old/stale.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: sandbox.project.path("dist/away"), withDestinationPath: sandbox.outside)
        let entry = CraftedEntry(files: [CraftedEntry.File("dist/a.txt", "cached\n")])
        let server = try HostileCacheServer { _, path in path.hasPrefix("ac/") ? .body(entry.bytes) : .status(404) }
        defer { server.stop() }
        let result = try sandbox.run(server, "--remote-cache-read-only")
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("0 succeeded, 1 restored\n"), "\(result.stdout)\(result.stderr)")
        #expect(try FileTree(sandbox.project.path("dist")).files.keys.sorted() == ["a.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.outside) == ["sentinel.txt"])
    }

    /// An entry naming a file and a file beneath it (`dist/a` and `dist/a/b`) cannot be written
    /// whole: refused before anything is written. Before, `dist/a/b` was written, `dist/a` failed,
    /// the task ran, and the crafted file stayed in its output directory as one of its outputs.
    @Test(arguments: [["dist/a/b", "dist/a"], ["dist/a", "dist/a/b"]])
    func anEntryNamingAFileAndAFileBeneathItIsRefusedAndLeavesNothing(_ order: [String]) throws {
        let sandbox = try Sandbox(manifest: """
            default: build
            tasks:
              build:
                sources: [src/main.c]
                outputs: [dist, s.txt]
                run: echo build >> ran.log && mkdir -p dist && cp src/main.c dist/real.txt && echo s > s.txt
            """)
        let entry = CraftedEntry(files: [CraftedEntry.File("s.txt", "crafted\n")] + order.map { CraftedEntry.File($0, "crafted\n") })
        let server = try HostileCacheServer { _, path in path.hasPrefix("ac/") ? .body(entry.bytes) : .status(404) }
        defer { server.stop() }
        let result = try sandbox.run(server, "--remote-cache-read-only")
        #expect(result.status == 0)
        #expect(sandbox.ran() == ["build"])
        #expect(result.stderr.contains("warning: cache entry for 'build' names both 'dist/a' and 'dist/a/b' beneath it; not restored"),
            "\(result.stderr)")
        #expect(try FileTree(sandbox.project.path("dist")).files.keys.sorted() == ["real.txt"])
        #expect(try String(contentsOfFile: sandbox.project.path("s.txt"), encoding: .utf8) == "s\n")
    }

    /// A task whose directory is a symbolic link out of the project (`dir: sub`, `sub -> outside`)
    /// is not restored through it.
    @Test func aTaskDirectoryThatIsALinkOutOfTheProjectIsNotWrittenThrough() throws {
        let sandbox = try Sandbox(manifest: """
            default: build
            tasks:
              build:
                dir: sub
                sources: [in.txt]
                outputs: [o.txt]
                run: cp in.txt o.txt
            """)
        try "made by the task\n".write(toFile: sandbox.outside + "/in.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: sandbox.project.path("sub"), withDestinationPath: sandbox.outside)
        let entry = CraftedEntry(files: [CraftedEntry.File("o.txt", "crafted\n")])
        let server = try HostileCacheServer { _, path in path.hasPrefix("ac/") ? .body(entry.bytes) : .status(404) }
        defer { server.stop() }
        let result = try sandbox.run(server, "--remote-cache-read-only")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(
            "warning: cache entry for 'build' would write through the task's directory, which is a symbolic link or not a directory; not restored"),
            "\(result.stderr)")
        // What the task itself wrote (it asked for that directory), never the entry's bytes.
        #expect(try String(contentsOfFile: sandbox.outside + "/o.txt", encoding: .utf8) == "made by the task\n")
    }

    // MARK: Emptied blobs

    /// A blob emptied in the cache directory (what a power loss can leave) is not reused by the next
    /// store: every later restore writes what the task wrote, as a run without the cache does.
    @Test func anEmptiedBlobIsNotReusedAndNoRestoreWritesAnEmptyFile() throws {
        let manifest = """
            default: copy
            tasks:
              copy:
                sources: [in.bin]
                outputs: [out.bin]
                run: cp in.bin out.bin
            """
        // Larger than what an entry holds inline, so it is a blob of its own.
        let content = String(repeating: "0123456789abcdef", count: 8 * 1024)
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        func clone() throws -> TemporaryProject { try TemporaryProject(manifest, files: ["in.bin": content]) }
        #expect(try clone().run(environment: ["OPSRUN_CACHE_DIR": cache]).status == 0)
        let blob = cache + "/cas/" + sha256Hex(Array(content.utf8))
        #expect(truncate(blob, 0) == 0)

        let second = try clone()
        #expect(try second.run(environment: ["OPSRUN_CACHE_DIR": cache]).status == 0)
        let third = try clone()
        let restored = try third.run(environment: ["OPSRUN_CACHE_DIR": cache])
        #expect(restored.status == 0)
        let reference = try clone()
        #expect(try reference.run("--no-cache").status == 0)
        let expected = try Data(contentsOf: URL(fileURLWithPath: reference.path("out.bin")))
        for project in [second, third] {
            #expect(try Data(contentsOf: URL(fileURLWithPath: project.path("out.bin"))) == expected)
        }
    }

    /// An entry in the cache directory cut short where one of its files ends (what a crash can
    /// leave) is no entry: restored, it would have written some of the task's outputs only.
    @Test func anEntryCutShortInTheCacheDirectoryIsNoEntry() throws {
        let manifest = """
            default: docs
            tasks:
              docs:
                sources: [in.txt]
                outputs: [out/*.txt]
                run: mkdir -p out && cp in.txt out/a.txt && cp in.txt out/b.txt
            """
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cache) }
        func clone() throws -> TemporaryProject { try TemporaryProject(manifest, files: ["in.txt": "text\n"]) }
        #expect(try clone().run(environment: ["OPSRUN_CACHE_DIR": cache]).status == 0)
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache + "/ac")
        try #require(entries.count == 1)
        let path = cache + "/ac/" + entries[0]
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // The first field is the first output file (2, length-delimited): cut where it ends.
        try #require(bytes.first == 0x12 && bytes[1] < 0x80)
        try Data(bytes.prefix(2 + Int(bytes[1]))).write(to: URL(fileURLWithPath: path))

        let second = try clone()
        #expect(try second.run(environment: ["OPSRUN_CACHE_DIR": cache]).status == 0)
        for name in ["out/a.txt", "out/b.txt"] {
            #expect((try? String(contentsOfFile: second.path(name), encoding: .utf8)) == "text\n", "\(name)")
        }
    }

    /// An entry that says an output has no bytes, under the digest of something else, is no entry.
    @Test func aZeroSizeWithAnotherDigestIsNotAnEmptyFile() throws {
        let sandbox = try Sandbox()
        var file = CraftedEntry.File("out/app", "")
        file.hash = sha256Hex(Array("int main() { return 0; }\n".utf8))
        let entry = CraftedEntry(files: [file]).bytes
        let server = try HostileCacheServer { _, path in path.hasPrefix("ac/") ? .body(entry) : .status(404) }
        defer { server.stop() }
        let result = try sandbox.run(server, "--remote-cache-read-only")
        #expect(result.status == 0)
        #expect(sandbox.ran() == ["build"])
        #expect(try String(contentsOfFile: sandbox.project.path("out/app"), encoding: .utf8) == "int main() { return 0; }\n")
    }

    // MARK: Bounded answers

    /// A server that never ends its body (for an entry, or for a blob larger than its digest says)
    /// is refused as soon as it says more than it may: one warning, the task runs, and opsrun's
    /// memory stays small.
    @Test(arguments: ["ac", "cas", "cas announcing"])
    func anEndlessAnswerIsRefusedWithoutBeingHeld(_ kind: String) throws {
        let sandbox = try Sandbox()
        var file = CraftedEntry.File("out/app", String(repeating: "x", count: 100 * 1024))
        file.inline = false
        let entry = CraftedEntry(files: [file]).bytes
        let server = try HostileCacheServer { _, path in
            switch kind {
            case "ac": return path.hasPrefix("ac/") ? .endless(announcing: nil) : .status(404)
            case "cas": return path.hasPrefix("ac/") ? .body(entry) : .endless(announcing: nil)
            default: return path.hasPrefix("ac/") ? .body(entry) : .endless(announcing: 1 << 40)
            }
        }
        defer { server.stop() }
        let peak = sandbox.project.url.path + ".peak"
        defer { unlink(peak) }
        let launcher = FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? ["/usr/bin/time", "-f", "%M", "-o", peak] : []
        let running = try OpsrunBinary.start(
            ["--remote-cache", server.url, "--remote-cache-read-only"], in: sandbox.project.url,
            environment: ["OPSRUN_REMOTE_CACHE_TIMEOUT": "60s"], launcher: launcher)
        let result = running.wait(seconds: 30)
        #expect(result.status == 0)
        #expect(sandbox.ran() == ["build"])
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        let what = kind == "ac" ? "ac/…" : "cas/…"
        #expect(warnings == ["warning: remote cache \(server.url): GET \(what): the answer is larger than it may be; going on without it"], "\(result.stderr)")
        if !launcher.isEmpty, let text = try? String(contentsOfFile: peak, encoding: .utf8),
            let kilobytes = Int(text.split(separator: "\n").last ?? "")
        {
            #expect(kilobytes < 200 * 1024, "peak resident size \(kilobytes) KiB")
        }
    }

    // MARK: Settings opsrun cannot use

    @Test(arguments: [
        ("http://127.0.0.1:65536/", "'http://127.0.0.1:65536/' has no port opsrun can use (a number from 1 to 65535)"),
        ("http://user:secret@127.0.0.1:99999/", "'http://127.0.0.1:99999/' has no port opsrun can use (a number from 1 to 65535)"),
        ("http:///cache", "'http:///cache' names no host"),
        ("ftp://user:secret@host/", "'ftp://host/' is not an http:// or https:// URL"),
    ])
    func aRemoteCacheURLOpsrunCannotUseIsAUsageErrorBeforeAnythingRuns(_ url: String, _ message: String) throws {
        let sandbox = try Sandbox()
        let result = try OpsrunBinary.run(["--remote-cache", url], in: sandbox.project.url)
        #expect(result.status == 2)
        #expect(result.stderr == "error: --remote-cache: \(message)\n")
        #expect(!result.stderr.contains("secret"))
        #expect(sandbox.ran() == [])
        let fromEnvironment = try OpsrunBinary.run([], in: sandbox.project.url, environment: ["OPSRUN_REMOTE_CACHE": url])
        #expect(fromEnvironment.status == 2)
        #expect(fromEnvironment.stderr == "error: OPSRUN_REMOTE_CACHE: \(message)\n")
        #expect(sandbox.ran() == [])
    }

    @Test func aHeaderWithoutAColonIsAUsageErrorNamingTheVariable() throws {
        let sandbox = try Sandbox()
        let result = try OpsrunBinary.run(
            ["--remote-cache", "http://127.0.0.1:1"], in: sandbox.project.url,
            environment: ["OPSRUN_REMOTE_CACHE_HEADER": "Bearer s3cret"])
        #expect(result.status == 2)
        #expect(result.stderr == "error: OPSRUN_REMOTE_CACHE_HEADER takes 'Name: value' (e.g. 'Authorization: Bearer …'); it has no ':'\n")
        #expect(sandbox.ran() == [])
    }

    @Test(arguments: ["a file", "read-only"])
    func aCacheDirectoryOpsrunCannotWriteTurnsCachingOffWithOneWarning(_ kind: String) throws {
        let sandbox = try Sandbox()
        let directory = sandbox.project.url.path + ".cache-" + kind.replacingOccurrences(of: " ", with: "-")
        // Root writes in a directory whatever its mode, but not in an immutable one.
        let asRoot = getuid() == 0
        defer {
            if asRoot { _ = try? chattr("-i", directory) }
            chmod(directory, 0o755)
            try? FileManager.default.removeItem(atPath: directory)
        }
        if kind == "a file" {
            try "not a directory\n".write(toFile: directory, atomically: true, encoding: .utf8)
        } else {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, 0o555)
            // A file system without the immutable flag (tmpfs) cannot show root a read-only directory.
            if asRoot, (try? chattr("+i", directory)) != 0 {
                print("aCacheDirectoryOpsrunCannotWrite…: chattr +i fails here, so the read-only case is not tested")
                return
            }
        }
        let result = try OpsrunBinary.run([], in: sandbox.project.url, environment: ["OPSRUN_CACHE_DIR": directory])
        #expect(result.status == 0)
        #expect(sandbox.ran() == ["build"])
        let reason = kind == "a file" ? "is not a directory" : "cannot be written"
        #expect(result.stderr == "warning: cache directory \(directory) \(reason); caching is off for this run\n")
    }

    /// What the one warning says of a server opsrun cannot talk to: in words, never a library's
    /// enum, and "not HTTP" only for an answer that is not.
    @Test(arguments: ["https to a plain server", "a host that does not exist", "an answer that is not HTTP"])
    func aServerOpsrunCannotTalkToIsSaidInWords(_ kind: String) throws {
        let sandbox = try Sandbox()
        let server = try HostileCacheServer { _, _ in .status(404) }
        defer { server.stop() }
        var broken: BrokenServer?
        defer { _ = broken }
        let (url, reason): (String, String)
        switch kind {
        case "https to a plain server":
            (url, reason) = ("https://127.0.0.1:\(server.port)", "TLS handshake failed (the server does not speak TLS: is it an http:// URL?)")
        case "a host that does not exist":
            (url, reason) = ("http://cache.invalid", "cannot find the host cache.invalid")
        default:
            broken = try BrokenServer(.garbage)
            (url, reason) = (broken!.url, "the answer is not HTTP")
        }
        let result = try OpsrunBinary.run(
            ["--remote-cache", url], in: sandbox.project.url, environment: ["OPSRUN_REMOTE_CACHE_TIMEOUT": "5s"])
        #expect(result.status == 0)
        #expect(sandbox.ran() == ["build"])
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        // Without a resolver to answer (a machine off the network), the name is not found in time.
        let offline = "warning: remote cache \(url): could not connect in time; going on without it"
        if kind == "a host that does not exist", warnings == [Substring(offline)] { return }
        #expect(warnings == ["warning: remote cache \(url): \(reason); going on without it"], "\(result.stderr)")
    }

    @Test func aHeaderThatIsNotOneIsAUsageErrorNamingTheVariable() throws {
        let sandbox = try Sandbox()
        let result = try OpsrunBinary.run(
            ["--remote-cache", "http://127.0.0.1:1"], in: sandbox.project.url,
            environment: ["OPSRUN_REMOTE_CACHE_HEADER": "Bad Name: s3cret\r\nX: y"])
        #expect(result.status == 2)
        #expect(result.stderr == "error: OPSRUN_REMOTE_CACHE_HEADER takes 'Name: value' (e.g. 'Authorization: Bearer …'); its name or value is not one HTTP allows\n")
        #expect(sandbox.ran() == [])
    }
}

/// Runs `chattr flag path`, for its exit status.
func chattr(_ flag: String, _ path: String) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
    process.arguments = [flag, path]
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

/// The files and links beneath a directory (not following links), with their contents and modes,
/// to tell what a run changed.
struct FileTree {
    var files: [String: String] = [:]

    init(_ root: String) throws {
        func walk(_ relative: String) {
            let absolute = relative.isEmpty ? root : root + "/" + relative
            var info = stat()
            guard lstat(absolute, &info) == 0 else { return }
            let mode = String(info.st_mode & 0o7777, radix: 8)
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if !relative.isEmpty { files[relative] = "directory \(mode)" }
                for name in (try? FileManager.default.contentsOfDirectory(atPath: absolute)) ?? [] {
                    walk(relative.isEmpty ? name : relative + "/" + name)
                }
            case S_IFLNK:
                files[relative] = "link to " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: absolute)) ?? "?")
            default:
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: absolute))) ?? Data()
                files[relative] = "file \(mode) " + sha256Hex(Array(bytes))
            }
        }
        walk("")
    }

    /// The paths added, removed or changed since `before`, each cut to its first component when
    /// it is beneath `.opsrun`.
    func changes(since before: FileTree) -> Set<String> {
        var changed: Set<String> = []
        for path in Set(files.keys).union(before.files.keys) where files[path] != before.files[path] {
            changed.insert(path.hasPrefix(".opsrun/") ? ".opsrun" : path)
        }
        return changed
    }
}
