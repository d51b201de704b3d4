import Testing

@testable import OpsrunCore

/// A thread that works beside its creator (the state's, while the manifest is read) starts on
/// another CPU, where it does not preempt its creator, and may then run anywhere its creator may.
/// A test that pins a thread works on a thread of its own, so that no thread of the test runner
/// is pinned, and checks what it saw once it is joined.
@Suite struct ThreadPlacementTests {
    static let cpus = ThreadPlacement.allowedCPUs()

    /// What a thread started with `startingOnAnotherCPU` saw first thing.
    struct Started {
        var cpu: Int
        var allowed: [Int]
    }

    static func startBeside() -> Started? {
        JoinedThread(startingOnAnotherCPU: true) {
            Started(cpu: ThreadPlacement.currentCPU(), allowed: ThreadPlacement.allowedCPUs())
        }.join()
    }

    @Test(.enabled(if: cpus.count >= 2, "needs two CPUs"))
    func aThreadBesideItsCreatorStartsOnAnotherCPUThenMayRunWhereItsCreatorMay() throws {
        // The creator's CPU is read before and after: a try in which the creator moved proves
        // nothing, and is made again (under the whole suite's load on 2 CPUs, 10 tries were
        // sometimes all moved).
        for _ in 0..<500 {
            let before = ThreadPlacement.currentCPU()
            let started = try #require(Self.startBeside())
            guard ThreadPlacement.currentCPU() == before else { continue }
            #expect(started.cpu != before)
            #expect(started.allowed == Self.cpus, "pinned to nothing once it runs")
            return
        }
        Issue.record("the creating thread moved between CPUs on every try")
    }

    @Test func withOneCPUAllowedThereIsNowhereElseAndTheThreadStillRuns() throws {
        let seen = JoinedThread { () -> (cpu: Int, placement: ThreadPlacement?, started: Started?)? in
            let cpu = ThreadPlacement.currentCPU()
            guard ThreadPlacement.allow([cpu]) else { return nil }
            defer { ThreadPlacement.allow(Self.cpus) }
            return (cpu, ThreadPlacement(), Self.startBeside())
        }.join()
        let (cpu, placement, started) = try #require(seen ?? nil)
        #expect(placement == nil)
        let thread = try #require(started)
        #expect(thread.cpu == cpu)
        #expect(thread.allowed == [cpu])
    }
}
