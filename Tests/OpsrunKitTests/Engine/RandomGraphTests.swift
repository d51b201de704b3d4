import OpsrunKit
import Testing
@testable import OpsrunEngine

/// A random run: a DAG with random priorities, queues, failures and bounds, from one seed.
private struct RandomCase {
    var operations: [TestOperation] = []
    var failingAttempts: [Int] = []
    var jobs = 1
    var queueBounds: [Int] = []
    var runner = FakeRunner()

    init(seed: UInt64, signal: Bool) {
        var random = SplitMix64(seed: seed)
        let count = Int.random(in: 1...60, using: &random)
        // Built in creation order (prerequisites created earlier), then placed at shuffled indices
        // so that prerequisites also come later in spec order.
        let position = Array(0..<count).shuffled(using: &random)
        let queueCount = Int.random(in: 0...2, using: &random)
        queueBounds = (0..<queueCount).map { _ in Int.random(in: 1...3, using: &random) }
        jobs = Int.random(in: 1...4, using: &random)
        var byPosition = [TestOperation?](repeating: nil, count: count)
        failingAttempts = Array(repeating: 0, count: count)
        for created in 0..<count {
            let name = "t\(position[created])"
            var operation = op(name)
            if created > 0 {
                let depCount = Int.random(in: 0...3, using: &random)
                let deps = (0..<depCount).map { _ in
                    "t\(position[Int.random(in: 0..<created, using: &random)])"
                }
                operation.deps = Array(Set(deps)).sorted()
            }
            operation.priority =
                Bool.random(using: &random)
                ? .normal : QueuePriority.allCases.randomElement(using: &random)!
            if queueCount > 0 && Int.random(in: 0..<3, using: &random) == 0 {
                operation.queue = Int.random(in: 0..<queueCount, using: &random)
            }
            operation.group = Int.random(in: 0..<8, using: &random) == 0
            operation.retries =
                Int.random(in: 0..<4, using: &random) == 0
                ? Int.random(in: 1...2, using: &random) : 0
            operation.allowFailure = Int.random(in: 0..<6, using: &random) == 0
            operation.interactive = Int.random(in: 0..<20, using: &random) == 0
            if !operation.group && Int.random(in: 0..<4, using: &random) == 0 {
                let failures = Int.random(in: 1...3, using: &random)
                failingAttempts[position[created]] = failures
                runner.terminations[name] = (0..<failures).map { _ in
                    .exited(Int32.random(in: 1...3, using: &random))
                }
            }
            runner.durations[name] = Int.random(in: 1...5, using: &random)
            byPosition[position[created]] = operation
        }
        operations = byPosition.map { $0! }
        if signal {
            runner.signals = [
                (tick: Int.random(in: 0...8, using: &random), signal: SignalNumber.interrupt)
            ]
        }
    }

    /// How the operation ends when it runs.
    func expectedOutcome(_ index: Int) -> (OperationOutcome, attempts: Int) {
        let operation = operations[index]
        if operation.group { return (.succeeded, 1) }
        let failures = failingAttempts[index]
        if failures <= operation.retries { return (.succeeded, failures + 1) }
        return (operation.allowFailure ? .failedAllowed : .failed, operation.retries + 1)
    }
}

@Suite struct RandomGraphTests {
    @Test(arguments: [false, true])
    func randomGraphsKeepEveryRuleOfTheRun(keepGoing: Bool) {
        var seen = Set<String>()
        for seed in UInt64(0)..<300 {
            seen.formUnion(
                check(RandomCase(seed: seed, signal: false), keepGoing: keepGoing, seed: seed))
        }
        // The cases exercised what they are meant to, so the checks above had something to catch.
        var expected: Set = [
            "failed", "failedAllowed", "cancelled", "retried", "queue full", "interactive",
        ]
        expected.insert(keepGoing ? "succeeded after a failure" : "notRun")
        #expect(seen.isSuperset(of: expected), "seen: \(seen.sorted())")
    }

    @Test func randomGraphsInterruptedAtRandomTicksStartNothingMore() {
        var seen = Set<String>()
        for seed in UInt64(1000)..<1150 {
            seen.formUnion(
                check(RandomCase(seed: seed, signal: true), keepGoing: seed % 2 == 0, seed: seed))
        }
        #expect(seen.isSuperset(of: ["interrupted", "notRun", "failed"]), "seen: \(seen.sorted())")
    }

    /// Checks every rule on one case; returns what the case exercised.
    private func check(_ random: RandomCase, keepGoing: Bool, seed: UInt64) -> Set<String> {
        let runner = random.runner
        let run = runEngine(
            random.operations, jobs: random.jobs, queueBounds: random.queueBounds,
            keepGoing: keepGoing,
            runner: runner)
        let events = run.recorder.events
        let report = run.report
        let count = random.operations.count
        let context = Comment(rawValue: "seed \(seed), keepGoing \(keepGoing)")

        // Every operation ends exactly once, in the state the report gives it.
        var endState = [OperationState?](repeating: nil, count: count)
        var endPosition = [Int](repeating: -1, count: count)
        for (position, event) in events.enumerated() {
            var ended: (Int, OperationState)?
            if case .finished(let index, let outcome, _) = event {
                ended = (index, .finished(outcome))
            }
            if case .cancelled(let index, let cause) = event { ended = (index, .cancelled(cause)) }
            guard let (index, state) = ended else { continue }
            #expect(endState[index] == nil, context)
            endState[index] = state
            endPosition[index] = position
        }
        #expect(endState == report.operations.map { $0.state }, context)
        #expect(report.counts.total == count, context)

        // No operation starts before all its prerequisites finished well: no dependent of a
        // failure ever starts.
        for (position, event) in events.enumerated() {
            guard case .operationStarted(let index, 1) = event else { continue }
            for dep in run.specs[index].prerequisites {
                let good =
                    endState[dep].map { state in
                        if case .finished(let outcome) = state {
                            outcome.unblocksDependents
                        } else {
                            false
                        }
                    } ?? false
                #expect(good && endPosition[dep] < position, context)
            }
        }

        // Bounds: -j, each named queue, interactive operations alone.
        #expect(runner.maxExecuting() <= random.jobs, context)
        for (queue, bound) in random.queueBounds.enumerated() {
            let members = Set(random.operations.filter { $0.queue == queue }.map(\.name))
            #expect(runner.maxExecuting(among: members) <= bound, context)
        }
        let interactive = Set(random.operations.filter(\.interactive).map(\.name))
        for start in runner.starts where start.executing.contains(where: interactive.contains) {
            #expect(start.executing.count == 1, context)
        }

        // A ran operation ends as scripted; a cancelled one names a real chain to a real failure.
        for index in 0..<count {
            switch report.operations[index].state {
            case .finished(let outcome):
                let expected = random.expectedOutcome(index)
                #expect(
                    outcome == expected.0 && report.operations[index].attempts == expected.attempts,
                    context)
            case .cancelled(.prerequisiteFailed(let dep)):
                #expect(run.specs[index].prerequisites.contains(dep), context)
                #expect(report.operations[dep].state == .finished(.failed), context)
            case .cancelled(.prerequisiteCancelled(let dep, let root)):
                #expect(run.specs[index].prerequisites.contains(dep), context)
                #expect(report.operations[root].state == .finished(.failed), context)
                if case .cancelled(let cause) = report.operations[dep].state {
                    #expect(cause.rootFailure == root, context)
                } else {
                    Issue.record("prerequisite \(dep) of \(index) was not cancelled; \(context)")
                }
            case .cancelled(.runStopped(let failed)):
                #expect(!keepGoing && report.stoppedAfterFailure == failed, context)
            case .cancelled(.interrupted(let signal)):
                #expect(report.signal == signal, context)
            case .pending, .ready, .executing:
                Issue.record("operation \(index) did not end; \(context)")
            }
        }

        // Without -k nothing starts after the first failure but groups, which run nothing and
        // finish as their prerequisites did; after a signal nothing starts at all.
        let firstFailure = events.firstIndex {
            if case .finished(_, .failed, _) = $0 { true } else { false }
        }
        let signalled = events.firstIndex(of: .runStopping(.signal(SignalNumber.interrupt)))
        let lateStart = events.indices.first { position in
            guard case .operationStarted(let index, let attempt) = events[position] else { return false }
            if let signalled, position > signalled { return true }
            if let firstFailure, !keepGoing, position > firstFailure, attempt == 1, !run.specs[index].isGroup { return true }
            return false
        }
        #expect(lateStart == nil, context)

        // With -k and no signal, every operation whose prerequisites all finished well ran.
        if keepGoing && report.signal == nil {
            for index in 0..<count {
                let prerequisitesGood = run.specs[index].prerequisites.allSatisfy {
                    if case .finished(let outcome) = report.operations[$0].state {
                        outcome.unblocksDependents
                    } else {
                        false
                    }
                }
                if prerequisitesGood {
                    #expect(
                        report.operations[index].state
                            == .finished(random.expectedOutcome(index).0), context)
                }
            }
        }
        let expectedExit: ExitCode =
            report.signal != nil ? .interrupted : (report.counts.failed > 0 ? .failure : .success)
        #expect(report.exitCode == expectedExit, context)

        var seen = Set<String>()
        if report.counts.failed > 0 { seen.insert("failed") }
        if report.counts.failedAllowed > 0 { seen.insert("failedAllowed") }
        if report.counts.notRun > 0 { seen.insert("notRun") }
        if report.signal != nil { seen.insert("interrupted") }
        if report.operations.contains(where: { $0.state.isPrerequisiteCancellation }) {
            seen.insert("cancelled")
        }
        if report.operations.contains(where: { $0.attempts > 1 }) { seen.insert("retried") }
        if !interactive.isEmpty && !runner.starts.isEmpty { seen.insert("interactive") }
        for (queue, bound) in random.queueBounds.enumerated() {
            let members = Set(random.operations.filter { $0.queue == queue }.map(\.name))
            if members.count > bound && runner.maxExecuting(among: members) == bound {
                seen.insert("queue full")
            }
        }
        if let firstFailure,
            events[firstFailure...].contains(where: {
                if case .finished(_, .succeeded, _) = $0 { true } else { false }
            })
        {
            seen.insert("succeeded after a failure")
        }
        return seen
    }
}

extension OperationState {
    fileprivate var isPrerequisiteCancellation: Bool {
        if case .cancelled(let cause) = self { cause.rootFailure != nil } else { false }
    }
}
