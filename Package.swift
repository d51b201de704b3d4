// swift-tools-version:6.0
import PackageDescription

// One target per layer, so that an import running upwards does not compile (docs/architecture.md):
// Core ← Engine ← Manifest ← Graph ← Plan ← Report ← Kit, with Process and Incremental beside them.
let package = Package(
    name: "opsrun",
    products: [
        .executable(name: "opsrun", targets: ["opsrun"]),
        .library(name: "OpsrunKit", targets: ["OpsrunKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // SHA-256 for content fingerprints (docs/manual/up-to-date.md): the maintained library, no hand-written hash.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // The shared cache's ActionResult messages (docs/manual/cache.md), generated once into OpsrunCache.
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        // The shared cache's HTTP (docs/manual/cache.md): a maintained client, no hand-written HTTP.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // libyaml, found through pkg-config; only OpsrunManifest/YAMLDocument.swift touches its C types.
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // Which file the dynamic loader loaded libyaml from (the manifest cache keys on it).
        .target(name: "CLoader"),
        // Static inline wrappers for system calls Swift cannot call directly; only OpsrunProcess imports it.
        .target(name: "CProcessShims"),
        // sched_getcpu and thread affinity, which Swift's Glibc leaves out; only OpsrunCore/ThreadPlacement.swift imports it.
        .target(name: "CThreadPlacement"),
        // Locations, diagnostics, bytes, files, the clock: what every layer speaks.
        .target(name: "OpsrunCore", dependencies: ["CThreadPlacement"]),
        // The operation/queue model: states, ready heap, named queues, failure policy, events.
        .target(name: "OpsrunEngine", dependencies: ["OpsrunCore"]),
        // Tasksfile.yaml → Manifest (plain values with source locations), and its cache.
        .target(
            name: "OpsrunManifest",
            dependencies: ["OpsrunCore", "OpsrunEngine", "CYAML", "CLoader"]),
        // Task ids, edges, cycles, a run's closure.
        .target(name: "OpsrunGraph", dependencies: ["OpsrunCore", "OpsrunManifest"]),
        // The only code that spawns: process groups, pipes, reaping, signals; the engine's runner.
        .target(name: "OpsrunProcess", dependencies: ["OpsrunCore", "OpsrunEngine", "CProcessShims"]),
        // Up to date: file observation (globs, hashing, stats) and the crash-safe state.
        .target(
            name: "OpsrunIncremental",
            dependencies: ["OpsrunCore", .product(name: "Crypto", package: "swift-crypto")]),
        // The output cache (docs/manual/cache.md): keys, the local store, the Bazel HTTP cache, ActionResult.
        .target(
            name: "OpsrunCache",
            dependencies: [
                "OpsrunCore", "OpsrunIncremental", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // What a run needs: the project, its operations and environments, the dry-run plan.
        .target(
            name: "OpsrunPlan",
            dependencies: ["OpsrunCore", "OpsrunEngine", "OpsrunManifest", "OpsrunGraph", "OpsrunIncremental"]),
        // Everything about not running a task: the state's lifetime, the up-to-date verdict, the
        // output cache's restores and stores, `--explain`'s reasons (docs/architecture.md).
        .target(
            name: "OpsrunReuse",
            dependencies: ["OpsrunCore", "OpsrunEngine", "OpsrunIncremental", "OpsrunCache"]),
        // Event consumers: the console, the printers, the report files.
        .target(name: "OpsrunReport", dependencies: ["OpsrunCore", "OpsrunEngine", "OpsrunManifest", "OpsrunGraph", "OpsrunPlan"]),
        // Wiring only: an invocation end to end.
        .target(
            name: "OpsrunKit",
            dependencies: [
                "OpsrunCore", "OpsrunEngine", "OpsrunManifest", "OpsrunGraph", "OpsrunProcess",
                "OpsrunIncremental", "OpsrunCache", "OpsrunReuse", "OpsrunPlan", "OpsrunReport",
            ]),
        .executableTarget(
            name: "opsrun",
            dependencies: ["OpsrunKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // The scheduler alone, timed (Benchmarks/bench.py runs it).
        .executableTarget(
            name: "opsrun-scheduler-bench", dependencies: ["OpsrunEngine"], path: "Sources/SchedulerBench"),
        .testTarget(name: "OpsrunKitTests", dependencies: ["OpsrunKit", "OpsrunReuse"]),
        .testTarget(name: "EndToEndTests", dependencies: ["opsrun"]),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer targets (docs/fuzzing.md), opt-in: only with OPSRUN_FUZZ=1 in the environment, so
// that the ordinary build and the tests never compile them. Fuzz/run.sh builds them with
// `--sanitize fuzzer -Xswiftc -DOPSRUN_FUZZING` into .build-fuzz; built without those, each is a
// tool that runs the files it is given through the same check. Here, in this package, because
// what they fuzz (CacheEntry) is `package`, not visible from another package.
if Context.environment["OPSRUN_FUZZ"] == "1" {
    package.targets += [
        .executableTarget(
            name: "opsrun-fuzz-manifest", dependencies: ["OpsrunCore", "OpsrunManifest"], path: "Fuzz/Manifest"),
        .executableTarget(
            name: "opsrun-fuzz-cache-entry", dependencies: ["OpsrunCore", "OpsrunCache"], path: "Fuzz/CacheEntry"),
    ]
}

// A member is usable only in a file that imports its module. Foundation above all: our sources
// import FoundationEssentials at most, but the packages they use import Foundation, and without
// this a `text.contains("x")` anywhere resolved to Foundation's, whose one call linked Foundation,
// CoreFoundation and ICU into opsrun (155 MB instead of 107 MB; Foundation's start-up ran before
// `main`: c300's no-op 3.95 -> 3.70 ms). Not for the tests, which never reach the binary, nor
// for OpsrunProcess: it cannot see Foundation, and its system types' members would need
// `import CProcessShims` in every file that uses `stat` or `rlimit`.
for target in package.targets where [.regular, .executable].contains(target.type) && target.name != "OpsrunProcess" {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
