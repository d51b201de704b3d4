import Testing

@testable import OpsrunCore

/// A thread that works beside its creator (the state's, while the manifest is read) starts on
/// another CPU, where it does not preempt its creator, and may then run anywhere its creator may.
@Suite struct ThreadPlacementTests {
    static let cpus = ThreadPlacement.allowedCPUs()

    @Test(.enabled(if: cpus.count >= 2, "needs two CPUs"))
    func aThreadBesideItsCreatorStartsOnAnotherCPUThenMayRunWhereItsCreatorMay() {
        // On a thread of its own, so that no thread of the test runner is pinned.
        let outcome = JoinedThread { () -> (creator: Int, started: Int, allowed: [Int])? in
            let creator = ThreadPlacement.currentCPU()
            // Held on one CPU, the creator cannot move while the thread is created.
            guard ThreadPlacement.allow([creator]) else { return nil }
            defer { ThreadPlacement.allow(Self.cpus) }
            let placement = ThreadPlacement()
            #expect(placement == nil, "one CPU allowed: nowhere else to start")
            ThreadPlacement.allow(Self.cpus)
            // Still on `creator`: widening the mask moves nothing.
            let before = ThreadPlacement.currentCPU()
            let started = JoinedThread(startingOnAnotherCPU: true) {
                (cpu: ThreadPlacement.currentCPU(), allowed: ThreadPlacement.allowedCPUs())
            }.join()
            guard let started else { return nil }
            return (before, started.cpu, started.allowed)
        }.join()
        let result = try! #require(outcome ?? nil)
        #expect(result.started != result.creator)
        #expect(result.allowed == Self.cpus)
    }

    @Test func withOneCPUAllowedTheThreadStartsThereAndRuns() {
        let outcome = JoinedThread { () -> (cpu: Int, allowed: [Int])? in
            let cpu = ThreadPlacement.currentCPU()
            guard ThreadPlacement.allow([cpu]) else { return nil }
            defer { ThreadPlacement.allow(Self.cpus) }
            return JoinedThread(startingOnAnotherCPU: true) {
                (cpu: ThreadPlacement.currentCPU(), allowed: ThreadPlacement.allowedCPUs())
            }.join().map { started in
                #expect(started.cpu == cpu)
                return started
            }
        }.join()
        let result = try! #require(outcome ?? nil)
        #expect(result.allowed == [result.cpu])
    }

    @Test(.enabled(if: cpus.count >= 2, "needs two CPUs"))
    func thePlacementLeavesOutOnlyTheCreatorsCPU() throws {
        let placement = try #require(ThreadPlacement())
        #expect(!placement.mayStart(on: placement.creatorCPU))
        for cpu in Self.cpus where cpu != placement.creatorCPU {
            #expect(placement.mayStart(on: cpu))
        }
    }
}
