import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/cache.md, "Depfile tasks and links are cached too", through the real binary: a C
/// project's compiles (with depfiles) and its link are restored in a fresh copy from the local
/// cache and from nginx, compiling nothing; an edited header then recompiles exactly its
/// includers, and a header with other content is never restored from another's entry.
@Suite struct CachedCBuildTests {
    /// A compiler that logs each call (`-c FILE` or `link`) to `log`, then runs `cc`: the same
    /// path for every copy of a test, since `CC` enters the key.
    final class LoggingCompiler {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-cc-\(UUID().uuidString)").path
        var path: String { directory + "/cc" }
        var log: String { directory + "/calls.log" }

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let script = """
                #!/bin/sh
                call=link
                previous=
                for word in "$@"; do [ "$previous" = -c ] && call="$word"; previous="$word"; done
                echo "$call" >> '\(log)'
                exec cc "$@"

                """
            try script.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        }

        /// The calls since the last time, sorted: `src/main.c`, `link`.
        func calls() -> [String] {
            defer { try? FileManager.default.removeItem(atPath: log) }
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init).sorted()
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    static let allCalls = ["link", "src/greet.c", "src/main.c", "src/mathx.c", "src/reverse.c"]
    static let outputs = ["build/hello", "build/src/greet.o", "build/src/main.o", "build/src/mathx.o", "build/src/reverse.o"]

    /// A fresh copy of Examples/c-program, at a path of its own (removed with the test).
    final class Copy {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-ccache-\(UUID().uuidString)")
            try FileManager.default.copyItem(at: OpsrunBinary.examples.appendingPathComponent("c-program"), to: url)
            for leftover in ["build", ".opsrun"] { try? FileManager.default.removeItem(at: url.appendingPathComponent(leftover)) }
            waitUntilFileTimesArePast(in: url.path)
        }

        func run(_ arguments: [String], cache: String? = nil) throws -> OpsrunBinary.Result {
            try OpsrunBinary.run(arguments, in: url, environment: cache.map { ["OPSRUN_CACHE_DIR": $0] } ?? [:])
        }

        func bytes(_ path: String) -> Data? { try? Data(contentsOf: url.appendingPathComponent(path)) }

        func append(_ text: String, to path: String) throws {
            let file = url.appendingPathComponent(path)
            try (String(contentsOf: file, encoding: .utf8) + text).write(to: file, atomically: false, encoding: .utf8)
        }

        deinit {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(atPath: OpsrunBinary.cacheDirectory(for: url))
        }
    }

    let cacheDirectory = TemporaryCacheDirectory()

    @Test func aFreshCopyRestoresEveryCompileAndTheLinkFromTheLocalCacheCompilingNothing() throws {
        let cc = try LoggingCompiler()
        let build = ["link", "CC=\(cc.path)"]
        let first = try Copy()
        let stored = try first.run(build, cache: cacheDirectory.path)
        #expect(stored.status == 0, "\(stored.stdout)\(stored.stderr)")
        #expect(cc.calls() == Self.allCalls)

        let second = try Copy()
        let restored = try second.run(["--explain"] + build, cache: cacheDirectory.path)
        #expect(restored.status == 0, "\(restored.stdout)\(restored.stderr)")
        #expect(cc.calls() == [])
        #expect(restored.stdout.hasSuffix("0 succeeded, 5 restored\n"), "\(restored.stdout)")
        #expect(restored.stdout.contains("compile[src/main.c] is restored from the local cache: no record of a previous run\n"))
        #expect(restored.stdout.contains("link is restored from the local cache: output build/hello missing\n"), "\(restored.stdout)")
        // Restored is recorded as run: nothing is out of date afterwards.
        #expect(try second.run(build, cache: cacheDirectory.path).stdout == "0 succeeded, 5 up to date\n")

        // Byte for byte what a run without the cache makes.
        let uncached = try Copy()
        #expect(try uncached.run(["--no-cache"] + build).status == 0)
        #expect(cc.calls() == Self.allCalls)
        for output in Self.outputs {
            #expect(second.bytes(output) != nil && second.bytes(output) == uncached.bytes(output), "\(output)")
        }
    }

    /// The restored compiles are recorded with the headers their depfiles listed: editing one
    /// recompiles exactly the files that include it, as after a real build.
    @Test func anEditedHeaderAfterAFullRestoreRecompilesExactlyItsIncluders() throws {
        let cc = try LoggingCompiler()
        let build = ["link", "CC=\(cc.path)"]
        #expect(try Copy().run(build, cache: cacheDirectory.path).status == 0)
        _ = cc.calls()
        let copy = try Copy()
        #expect(try copy.run(build, cache: cacheDirectory.path).stdout.hasSuffix("0 succeeded, 5 restored\n"))
        #expect(cc.calls() == [])

        try copy.append("int unused_mathx(void);\n", to: "include/mathx.h")
        let mathx = try copy.run(["--explain"] + build, cache: cacheDirectory.path)
        #expect(mathx.status == 0, "\(mathx.stdout)\(mathx.stderr)")
        #expect(cc.calls() == ["src/main.c", "src/mathx.c"], "\(mathx.stdout)")
        #expect(mathx.stdout.contains("compile[src/mathx.c] runs: source include/mathx.h changed\n"), "\(mathx.stdout)")

        try copy.append("int unused_text(void);\n", to: "include/text.h")
        #expect(try copy.run(build, cache: cacheDirectory.path).status == 0)
        #expect(cc.calls() == ["src/greet.c", "src/main.c", "src/reverse.c"])
    }

    @Test func aFreshCopyRestoresEveryCompileAndTheLinkFromNginx() throws {
        let server = try NginxCacheServer()
        let cc = try LoggingCompiler()
        let build = ["--remote-cache", server.url, "link", "CC=\(cc.path)"]
        // Each copy has a local cache of its own: what the second restores came from the server.
        let first = try Copy()
        #expect(try first.run(build).status == 0)
        #expect(cc.calls() == Self.allCalls)

        let second = try Copy()
        let restored = try second.run(["--explain"] + build)
        #expect(restored.status == 0, "\(restored.stdout)\(restored.stderr)")
        #expect(cc.calls() == [])
        #expect(restored.stdout.hasSuffix("0 succeeded, 5 restored\n"), "\(restored.stdout)\(restored.stderr)")
        #expect(restored.stdout.contains("compile[src/greet.c] is restored from the shared cache: no record of a previous run\n"))
        #expect(restored.stdout.contains("link is restored from the shared cache: output build/hello missing\n"))
        #expect(restored.stderr == "")
        for output in Self.outputs {
            #expect(second.bytes(output) != nil && second.bytes(output) == first.bytes(output), "\(output)")
        }
    }

    static let fakeCompile = """
        default: build
        tasks:
          build:
            sources: [main.c]
            outputs: [out/main.o]
            depfile: out/main.d
            run: |
              echo build >> ran.log && mkdir -p out && cat main.c inc.h > out/main.o && printf 'out/main.o: main.c inc.h\\n' > out/main.d
          link:
            deps: [build]
            outputs: [out/app]
            run: echo link >> ran.log && cat out/main.o > out/app && echo linked >> out/app
        """

    func project(header: String) throws -> TemporaryProject {
        let project = try TemporaryProject(Self.fakeCompile, files: ["main.c": "main\n", "inc.h": header + "\n"])
        project.waitUntilFileTimesArePast()
        return project
    }

    func ran(_ project: TemporaryProject) -> [String] {
        defer { try? FileManager.default.removeItem(atPath: project.path("ran.log")) }
        let text = (try? String(contentsOfFile: project.path("ran.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The key of a compile does not know its headers: the entry keeps what its depfile listed,
    /// and a header with other content now matches no entry, so the task runs; so does the link,
    /// whose prerequisite wrote another object.
    @Test func aHeaderWithOtherContentMatchesNoEntryAndTheTaskRuns() throws {
        let environment = ["OPSRUN_CACHE_DIR": cacheDirectory.path]
        let one = try project(header: "one")
        #expect(try one.run("link", environment: environment).status == 0)
        #expect(ran(one) == ["build", "link"])

        let two = try project(header: "two")
        let result = try two.run("link", environment: environment)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(ran(two) == ["build", "link"])
        #expect(try String(contentsOfFile: two.path("out/app"), encoding: .utf8) == "main\ntwo\nlinked\n")

        // Both entries are kept: a third copy with either header restores its own.
        for header in ["one", "two"] {
            let again = try project(header: header)
            let restored = try again.run("link", environment: environment)
            #expect(restored.stdout.hasSuffix("0 succeeded, 2 restored\n"), "\(restored.stdout)\(restored.stderr)")
            #expect(ran(again) == [])
            #expect(try String(contentsOfFile: again.path("out/app"), encoding: .utf8) == "main\n\(header)\nlinked\n")
        }
    }

    /// A compiler given absolute paths lists absolute paths: those inside the project are kept
    /// relative to the task's directory, so a clone elsewhere matches (and then tracks) its own
    /// header, not the first clone's.
    @Test func absolutePathsInsideTheProjectAreSharedByClonesAtOtherPlaces() throws {
        let manifest = """
            tasks:
              build:
                sources: [main.c]
                outputs: [out/main.o]
                depfile: out/main.d
                run: |
                  echo build >> ran.log && mkdir -p out && cat main.c inc.h > out/main.o && printf 'out/main.o: %s/main.c %s/inc.h\\n' "$PWD" "$PWD" > out/main.d
            """
        let environment = ["OPSRUN_CACHE_DIR": cacheDirectory.path]
        let one = try TemporaryProject(manifest, files: ["main.c": "main\n", "inc.h": "one\n"])
        one.waitUntilFileTimesArePast()
        #expect(try one.run("build", environment: environment).status == 0)
        #expect(ran(one) == ["build"])

        let two = try TemporaryProject(manifest, files: ["main.c": "main\n", "inc.h": "one\n"])
        two.waitUntilFileTimesArePast()
        let restored = try two.run("build", environment: environment)
        #expect(restored.stdout.hasSuffix("0 succeeded, 1 restored\n"), "\(restored.stdout)\(restored.stderr)")
        try "two\n".write(toFile: two.path("inc.h"), atomically: false, encoding: .utf8)
        let edited = try two.run("--explain", "build", environment: environment)
        #expect(edited.stdout.contains("build runs: source inc.h changed\n"), "\(edited.stdout)")
        #expect(ran(two) == ["build"])
        #expect(try String(contentsOfFile: two.path("out/main.o"), encoding: .utf8) == "main\ntwo\n")
    }

    /// With a cache on, `--explain` says why a task that runs could not have been restored.
    @Test func explainSaysWhyATaskIsNotCacheable() throws {
        let project = try TemporaryProject("""
            tasks:
              noOutputs:
                sources: [in.txt]
                run: cat in.txt
              optedOut:
                sources: [in.txt]
                outputs: [a.txt]
                cache: false
                run: cp in.txt a.txt
              unkeyed:
                outputs: [b.txt]
                run: echo b > b.txt
              keyed:
                sources: [in.txt]
                outputs: [c.txt]
                run: cp in.txt c.txt
            """, files: ["in.txt": "in\n"])
        let result = try project.run(
            "--explain", "noOutputs", "optedOut", "unkeyed", "keyed", environment: ["OPSRUN_CACHE_DIR": cacheDirectory.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").filter { $0.contains(" runs: ") }.sorted()
        #expect(lines == [
            "keyed runs: no record of a previous run",
            "noOutputs runs: no record of a previous run (not cacheable: it declares no outputs)",
            "optedOut runs: no record of a previous run (not cacheable: it says cache: false)",
            "unkeyed runs: output b.txt missing (not cacheable: it has no sources, depfile or prerequisites to key it on)",
        ])
        // Without a cache, nothing is said of it.
        let off = try project.run("--explain", "-B", "--no-cache", "noOutputs")
        #expect(off.stdout.contains("noOutputs runs: forced (-B)\n"), "\(off.stdout)")
        #expect(!off.stdout.contains("cacheable"))
    }
}
