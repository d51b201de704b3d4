import Testing
@testable import OpsrunIncremental

/// What `--watch` takes for a change (docs/manual/watch.md): a task's sources, never its outputs or the state.
@Suite struct WatchedSourcesTests {
    @Test func globsLiteralsAndDirectoriesMatchWhatTheyNameBelowTheTasksDirectory() {
        var watched = WatchedSources()
        watched.addTask(
            directory: "/p", sources: ["src/**/*.c", "include/*.h", "VERSION", "../shared/*.h"],
            outputs: ["src/generated.c"], depfileInputs: ["/usr/include/stdio.h"])
        #expect(watched.isSource("/p/src/a.c"))
        #expect(watched.isSource("/p/src/lib/deep/b.c"))
        #expect(!watched.isSource("/p/src/a.o"))
        #expect(watched.isSource("/p/include/x.h"))
        #expect(!watched.isSource("/p/include/sub/x.h"))
        #expect(watched.isSource("/p/VERSION"))
        #expect(!watched.isSource("/p/VERSION.bak"))
        #expect(watched.isSource("/shared/common.h"))
        #expect(watched.isSource("/usr/include/stdio.h"))
        // A task's own outputs and the state never start a run.
        #expect(!watched.isSource("/p/src/generated.c"))
        #expect(!watched.isSource("/p/src/.opsrun/state"))
        #expect(watched.directories["/p/src"] == true)
        #expect(watched.directories["/p/include"] == false)
        #expect(watched.directories["/p"] == false)
        #expect(watched.directories["/usr/include"] == false)
    }

    @Test func aSourceDirectoryThatIsGoneIsWatchedForFromAboveAndCountsWhenMade() throws {
        // Before: after `rm -rf data` and a run, making data again (a branch switched back)
        // started nothing, and neither did editing files in it: the watch was blind to it.
        let scratch = ScratchDirectory()
        scratch.write("Tasksfile.yaml", "")
        var watched = WatchedSources()
        watched.addTask(directory: scratch.path, sources: ["data/**/*.txt", "gen/deep/*.h"], outputs: ["out/**"])
        #expect(watched.directories[scratch.path] == false)
        #expect(watched.isSource(scratch.path + "/data"))
        #expect(watched.isSource(scratch.path + "/gen"))
        #expect(watched.isSource(scratch.path + "/gen/deep"))
        #expect(!watched.isSource(scratch.path + "/other"))
        #expect(!watched.isSource(scratch.path + "/out"))
        #expect(WatchedSources.nearestDirectory(above: scratch.path + "/gen/deep/x") == scratch.path)
    }

    @Test func theManifestIsWatchedByItsDirectory() {
        var watched = WatchedSources()
        watched.addManifest("/p/Tasksfile.yaml")
        #expect(!watched.hasSources)
        #expect(watched.manifests == ["/p/Tasksfile.yaml"])
        #expect(watched.directories == ["/p": false])
        #expect(!watched.isSource("/p/Tasksfile.yaml"))
    }
}
