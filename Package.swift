// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "opsrun",
    products: [
        .executable(name: "opsrun", targets: ["opsrun"]),
        .library(name: "OpsrunKit", targets: ["OpsrunKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // SHA-256 for content fingerprints (SPEC §5): the maintained library, no hand-written hash.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // libyaml, found through pkg-config; only Manifest/YAMLDocument.swift touches its C types.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // Static inline wrappers for syscalls and glibc spawn actions Swift cannot call directly;
        // only Process/ imports it.
        .target(name: "CProcessShims"),
        .target(
            name: "OpsrunKit",
            dependencies: [
                "CYAML",
                "CProcessShims",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "opsrun",
            dependencies: [
                "OpsrunKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Issue 4's third target: the scheduler alone, timed (Benchmarks/bench.py runs it).
        .executableTarget(
            name: "opsrun-scheduler-bench",
            dependencies: ["OpsrunKit"],
            path: "Sources/SchedulerBench"
        ),
        .testTarget(
            name: "OpsrunKitTests",
            dependencies: ["OpsrunKit"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["opsrun"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
