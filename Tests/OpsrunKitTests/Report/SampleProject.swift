import OpsrunKit
@testable import OpsrunGraph

/// The docs/manual/manifest.md example, trimmed: a queue, priorities, descriptions, a shared prerequisite and a group.
enum SampleProject {
    static var graph: TaskGraph {
        var b = ManifestBuilder()
        b.task("fetch", run: ["curl -fsSL \"$URL\" -o src.tgz"], desc: "Download the sources", queue: "net")
        b.task("compile", deps: ["fetch"], run: ["mkdir -p build", "cc $CFLAGS -c main.c -o build/main.o"], priority: .high)
        b.task("docs", deps: ["fetch"], run: ["make -C docs"], desc: "Build the docs", priority: .low)
        b.task("lint", run: ["swift format lint -r Sources"])
        b.task("build", deps: ["compile", "docs"], desc: "Build everything")
        return b.graph
    }
}
