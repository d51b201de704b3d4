import Foundation
import Testing

@testable import OpsrunKit
@testable import OpsrunEngine
@testable import OpsrunProcess

@Suite struct EnvironmentCacheTests {
    /// The C strings of a block, in order, up to its NULL.
    private func strings(_ block: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> [String] {
        var result: [String] = []
        var index = 0
        while let string = block[index] {
            result.append(String(cString: string))
            index += 1
        }
        return result
    }

    @Test func environmentBlockFollowsEveryChangeOfEntries() {
        let block = EnvironmentBlock()
        let shared = ["PATH=/bin", "HOME=/root", "LANG=C"]
        let sequence = [
            shared + ["OPSRUN_TASK=a"], shared + ["OPSRUN_TASK=b"], ["X=1"], [],
            shared + ["OPSRUN_TASK=c", "EXTRA=1"], ["PATH=/usr/bin", "HOME=/root", "LANG=C", "T=d"],
        ]
        for entries in sequence {
            #expect(strings(block.pointer(for: entries)) == entries)
        }
    }

    @Test func jobsSharingOneBlockDifferOnlyInTheirTask() {
        // The same shared array job after job takes the fast path; anything else compares entries.
        let shared = ["PATH=/bin", "OPSRUN_TASK=parent", "HOME=/root"]
        let other = ["PATH=/usr/bin", "HOME=/root"]
        let jobs: [(environment: JobEnvironment, directory: String)] = [
            (JobEnvironment(shared: shared, taskName: "a"), "/tmp"),
            (JobEnvironment(shared: shared, taskName: "b"), "/tmp"),
            (JobEnvironment(shared: shared, taskName: "b"), "/tmp"),
            // An `each` instance's own entries follow the shared ones; the next job drops them.
            (JobEnvironment(shared: shared, own: ["SRC=x.c"], taskName: "b[x.c]"), "/tmp"),
            (JobEnvironment(shared: shared, own: ["SRC=y.c"], taskName: "b[y.c]"), "/tmp"),
            (JobEnvironment(shared: shared, taskName: "b"), "/tmp"),
            (JobEnvironment(shared: other, taskName: "c"), "/tmp"),
            (JobEnvironment(shared: shared, taskName: "d"), "/"),
            (JobEnvironment(shared + ["OPSRUN_TASK=e"]), "/"),
            (JobEnvironment(shared: shared, taskName: "f"), "/"),
            (JobEnvironment(shared: Array(shared), taskName: "g"), "/"),
        ]
        let block = EnvironmentBlock()
        let cache = DirectEnvironmentCache()
        #expect(jobs[3].environment.entries == shared + ["SRC=x.c", "OPSRUN_TASK=b[x.c]"])
        for (environment, directory) in jobs {
            #expect(strings(block.pointer(for: environment)) == environment.entries)
            cache.update(environment: environment, workingDirectory: directory)
            #expect(
                cache.entries == DirectEnvironment.make(from: environment.entries, workingDirectory: directory))
            #expect(strings(cache.environmentBlock) == cache.entries)
        }
    }

    @Test func directEnvironmentFromJobToJobIsWhatTheShellPassesOn() {
        let first = makeTemporaryDirectory()
        let second = makeTemporaryDirectory()
        defer {
            removeDirectory(first)
            removeDirectory(second)
        }
        let cache = DirectEnvironmentCache()
        let shared = ["PATH=/bin", "A-B=1", "X=1", "PWD=/nonexistent", "X=2", "NOEQUALS", "_y=3"]
        let jobs: [(environment: [String], directory: String)] = [
            (shared + ["OPSRUN_TASK=a"], first),
            (shared + ["OPSRUN_TASK=b"], first),
            // An overridden duplicate changes nothing; the one that wins does.
            (["PATH=/bin", "A-B=1", "X=5", "PWD=/nonexistent", "X=2", "NOEQUALS", "_y=3", "OPSRUN_TASK=b"], first),
            (["PATH=/bin", "A-B=1", "X=5", "PWD=/nonexistent", "X=7", "NOEQUALS", "_y=3", "OPSRUN_TASK=b"], first),
            (["PATH=/usr/bin:/bin", "A-B=1", "X=1", "PWD=/nonexistent", "X=2", "NOEQUALS", "_y=3", "OPSRUN_TASK=c"], first),
            (shared + ["OPSRUN_TASK=d"], second),
            (["PATH=/bin", "A-B=1", "X=1", "PWD=\(second)/.", "X=2", "NOEQUALS", "_y=3", "OPSRUN_TASK=d"], second),
            (["PATH=/bin", "A-B=1", "X=1", "Y=1", "X=2", "NOEQUALS", "_y=3", "OPSRUN_TASK=d"], second),
            (["OPSRUN_TASK=e"], second),
        ]
        for (environment, directory) in jobs {
            cache.update(environment: JobEnvironment(environment), workingDirectory: directory)
            #expect(strings(cache.environmentBlock) == cache.entries)
            #expect(
                cache.entries == DirectEnvironment.make(from: environment, workingDirectory: directory))
            #expect(cache.searchPath == DirectEnvironment.searchPath(in: environment))
        }
    }
}
