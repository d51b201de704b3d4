import Foundation
import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunManifest
@testable import OpsrunGraph

/// `ManifestCodec`: what `.opsrun/manifest.cache` holds must decode to exactly the parsed manifest.
@Suite struct ManifestCodecTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Examples").standardized

    @Test func everyExampleManifestRoundTrips() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path).sorted()
        #expect(folders.count >= 5)
        for folder in folders {
            let file = Self.examples.appendingPathComponent(folder).appendingPathComponent("Tasksfile.yaml")
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            let manifest = try ManifestLoader.load(text: text, file: "Tasksfile.yaml", directory: Self.examples.appendingPathComponent(folder).path)
            let decoded = try #require(ManifestCodec.decode(ManifestCodec.encode(manifest, index: TaskGraph.index(of: manifest.tasks))), "\(folder)")
            #expect(decoded.manifest == manifest, "\(folder)")
        }
    }

    /// Includes (format 5): namespaces, included files with digests, root references, and each
    /// included task's directory; (format 8) an included manifest's `dotenv` files.
    @Test func anIncludingManifestRoundTrips() throws {
        let scratch = ScratchDirectory()
        scratch.write("Tasksfile.yaml", "includes: { web: web, gone: { path: gone, optional: true } }\ntasks:\n  a: { deps: [web:b, ':x'], run: echo }\n")
        scratch.write("web/Tasksfile.yaml", "default: b\ndotenv: [.env]\nenv: { X: y }\nqueues: { q: { max: 1 } }\ntasks:\n  b: { deps: [':a'], run: echo, queue: q }\n")
        let text = String(decoding: scratch.bytes("Tasksfile.yaml"), as: UTF8.self)
        let manifest = try ManifestLoader.load(text: text, file: "Tasksfile.yaml", directory: scratch.path)
        #expect(manifest.namespaces.count == 1 && manifest.rootReferences.count == 1)
        #expect(manifest.includedFiles.contains { $0.digest == nil } && manifest.includedFiles.contains { $0.digest != nil })
        #expect(manifest.tasks[1].baseDirectory == "web")
        #expect(manifest.namespaces[0].dotenvFiles.map(\.value) == ["web/.env"] && manifest.dotenvFiles.isEmpty)
        let decoded = try #require(ManifestCodec.decode(ManifestCodec.encode(manifest, index: TaskGraph.index(of: manifest.tasks))))
        #expect(decoded.manifest == manifest)
    }

    @Test func everyFieldRoundTrips() throws {
        let manifest = try #require(ManifestTest.load(Self.everyField))
        let decoded = try #require(ManifestCodec.decode(ManifestCodec.encode(manifest, index: TaskGraph.index(of: manifest.tasks))))
        #expect(decoded.manifest == manifest)
        // Spot checks that the fields were really set, so equality above means something.
        let build = manifest.tasks[2]
        #expect(build.description == "Build ünïcode ✓")
        #expect(build.timeoutMilliseconds == 90_000)
        #expect(build.retries == 2 && build.allowFailure && build.interactive && !build.cache)
        #expect(build.qualityOfService == .background && build.priority == .veryLow)
        #expect(build.requires.map(\.value) == ["TOKEN", "REGION"])
        // `each`, `requires` and `depfile` together (each one branch of issue 15, format 4 holds all).
        #expect(decoded.manifest.tasks[2].depfile?.value == "build/${NAME}.d")
        let matrix = decoded.manifest.tasks[3]
        #expect(matrix.each?.names == ["OS", "SRC"] && matrix.requires.map(\.value) == ["OS", "TOKEN"])
        #expect(matrix.depfile?.value == "build/${SRC%.c}.d")
        // Issue 16: `service` (with and without `ready`) and `cleanup`, in format 7 (with includes and cache).
        #expect(decoded.manifest.tasks[3].cleanup.map(\.value) == ["rm -f tmp", "echo done"])
        #expect(decoded.manifest.tasks[4].service?.ready?.value == "pg_isready")
        #expect(decoded.manifest.tasks[4].service?.readyTimeoutMilliseconds == 30_000)
        #expect(decoded.manifest.tasks[5].service == ServiceSpec(location: decoded.manifest.tasks[5].service!.location))
        // Format 9: `shell` (the manifest's for a task without its own) and `pass_env`.
        #expect(decoded.manifest.tasks[2].shell == ShellSpec(words: ["python3", "-c"], passesTaskName: false))
        #expect(decoded.manifest.tasks[3].shell == .bash)
        #expect(decoded.manifest.tasks[2].passEnvironment.map(\.value) == ["AWS_*", "CI"])
        #expect(decoded.manifest.passEnvironment.map(\.value) == ["AWS_*"])
        #expect(ManifestCodec.formatVersion == 9)
        #expect(ManifestTest.at(decoded.manifest.tasks[2].deps[1].location) == "18:19")
    }

    @Test func generatedManifestsRoundTripWithTheirGraph() throws {
        for (count, seed) in [(1, 1), (50, 2), (3_000, 3)] {
            let text = ManifestCacheFixture.yaml(tasks: count, seed: UInt64(seed))
            let manifest = try ManifestLoader.load(text: text, file: "sub/Tasksfile.yaml", directory: "/p")
            let decoded = try #require(ManifestCodec.decode(ManifestCodec.encode(manifest, index: TaskGraph.index(of: manifest.tasks))))
            #expect(decoded.manifest == manifest)
            let parsed = TaskGraph(manifest: manifest)
            let cached = TaskGraph(manifest: decoded.manifest, dependencyIDs: decoded.dependencyIDs)
            #expect(cached.prerequisites == parsed.prerequisites)
            #expect(cached.prerequisiteLocations == parsed.prerequisiteLocations)
            #expect(cached.dependents == parsed.dependents)
            #expect(cached.index == parsed.index)
            #expect(cached.names == parsed.names)
        }
    }

    @Test func unknownAndRepeatedDependenciesKeepTheirMeaning() throws {
        let at = OpsrunCore.SourceLocation(file: "T.yaml", line: 1, column: 1)
        let manifest = Manifest(file: "T.yaml", directory: "/", tasks: [
            TaskSpec(name: "a", location: at, deps: [Located("later", at: at), Located("nope", at: at), Located("later", at: at)]),
            TaskSpec(name: "later", location: at),
        ])
        let decoded = try #require(ManifestCodec.decode(ManifestCodec.encode(manifest, index: TaskGraph.index(of: manifest.tasks))))
        #expect(decoded.manifest == manifest)
        #expect(decoded.dependencyIDs == [[1, -1, 1], []])
        #expect(TaskGraph(manifest: decoded.manifest, dependencyIDs: decoded.dependencyIDs).prerequisites == [[1], []])
    }

    @Test func damagedEncodingsAreRefusedWithoutCrashing() throws {
        let manifest = try #require(ManifestTest.load(Self.everyField))
        let bytes = ManifestCodec.encode(manifest, index: TaskGraph.index(of: manifest.tasks))
        for length in 0..<bytes.count {
            #expect(ManifestCodec.decode(Array(bytes[0..<length])) == nil, "cut at \(length)")
        }
        #expect(ManifestCodec.decode(bytes + [0]) == nil)
        // A changed byte may still decode (to another manifest: the cache's checksum catches that),
        // but must never trap or produce an id out of range.
        for position in bytes.indices {
            for value: UInt8 in [0x00, 0x7f, 0xff] {
                var damaged = bytes
                damaged[position] = value
                if let decoded = ManifestCodec.decode(damaged) {
                    _ = TaskGraph(manifest: decoded.manifest, dependencyIDs: decoded.dependencyIDs)
                }
            }
        }
    }

    static let everyField = """
        version: 1
        default: [build, test]
        env:
          PREFIX: /opt/${HOME}
          EMPTY: ""
        dotenv: [.env, .env.local]
        shell: bash
        pass_env: [AWS_*]
        queues:
          net: { max: 2 }
        tasks:
          fetch:
            run: curl -o x "$URL"
            queue: net
          test: { deps: [fetch], run: [true, "false || true"] }
          build:
            desc: Build ünïcode ✓
            deps: [fetch, test]
            run: |
              cc -c main.c
              ld main.o
            dir: ${PREFIX}/src
            env: { CC: clang, CFLAGS: -O2 }
            sources: ["src/**/*.c", include/x.h]
            outputs: [main.o]
            depfile: build/${NAME}.d
            priority: very-low
            qos: background
            timeout: 90s
            retries: 2
            allow_failure: true
            interactive: true
            cache: false
            requires: [TOKEN, REGION]
            shell: [python3, -c]
            pass_env: CI
          matrix:
            each: { OS: [linux, mac], SRC: "src/*.c" }
            requires: [OS, TOKEN]
            outputs: ["build/${SRC%.c}.o"]
            depfile: build/${SRC%.c}.d
            run: cc -MMD -MF "build/${SRC%.c}.d" -c "$SRC"
            cleanup: [rm -f tmp, echo done]
          db:
            service: true
            run: postgres
            ready: pg_isready
            ready_timeout: 30s
          cache: { service: true, run: redis-server }
        """
}
