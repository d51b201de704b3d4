import Foundation
import Testing

@testable import OpsrunIncremental
@testable import OpsrunKit
@testable import OpsrunReuse

/// The state opened on a thread of its own while the manifest is read is the state opened plainly.
@Suite struct StatePreloadTests {
    @Test func aPreloadedStateHoldsWhatOpeningItPlainlyGives() throws {
        let scratch = ScratchDirectory()
        #expect(StatePreload(manifestDirectory: scratch.path, minimumBytes: 0) == nil, "no state file: nothing to open ahead")
        IncrementalRunTests.runEvery(
            IncrementalRunTests.compileTasks(3, in: scratch), stateDirectory: scratch.absolute(".opsrun"), in: scratch)

        #expect(StatePreload(manifestDirectory: scratch.path) == nil, "a small state opens when needed")
        let preload = try #require(StatePreload(manifestDirectory: scratch.path, minimumBytes: 0))
        let preloaded = try #require(preload.take())
        let entries = preloaded.allEntries()
        _ = preloaded.close(compacting: false)
        // Opened after: the first holds the state's lock while it is open.
        let plain = StateStore(directory: scratch.absolute(".opsrun"))
        #expect(entries.count == 3)
        #expect(entries == plain.allEntries())
        _ = plain.close(compacting: false)
    }

    /// A preloaded state starts statting the files it knows at once, unless every task runs (`-B`).
    @Test func aPreloadedStateStatsTheFilesItKnowsUnlessEveryTaskRuns() throws {
        let scratch = ScratchDirectory()
        let specs = IncrementalRunTests.compileTasks(StatPrefetch.minimumFileCount / 2, in: scratch)
        let state = scratch.absolute(".opsrun")
        IncrementalRunTests.runEvery(specs, stateDirectory: state, in: scratch)
        IncrementalRunTests.trustFiles(of: specs, stateDirectory: state)

        for prefetching in [true, false] {
            let preload = try #require(StatePreload(manifestDirectory: scratch.path, minimumBytes: 0, prefetchingStats: prefetching))
            let store = try #require(preload.take())
            #expect((store.prefetchedStatus(projectKey: "src/t0.c") != nil) == prefetching)
            _ = store.close(compacting: false)
        }
    }

}
