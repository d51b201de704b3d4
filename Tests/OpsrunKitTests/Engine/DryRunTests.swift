import OpsrunKit
import Testing
@testable import OpsrunEngine

@Suite struct DryRunTests {
    @Test func dryRunFinishesEveryStartedJobSuccessfullyInStartOrder() {
        let runner = DryRunRunner()
        runner.start(
            CommandJob(
                id: 7, taskName: "b", commands: ["x", "y"], workingDirectory: "/", environment: []))
        runner.start(
            CommandJob(
                id: 3, taskName: "a", commands: ["x"], workingDirectory: "/", environment: []))
        #expect(
            runner.waitForEvents() == [
                .finished(jobID: 7, JobResult(termination: .exited(0), commandIndex: 1)),
                .finished(jobID: 3, JobResult(termination: .exited(0), commandIndex: 0)),
            ])
        #expect(runner.waitForEvents() == [])
    }

    @Test func dryRunStartOrderIsThePlan() {
        let run = runEngine(
            [
                op("fetch", priority: .high), op("compile", ["fetch"]), op("docs"),
                op("lint", priority: .low),
                op("link", ["compile"]), op("build", ["link", "docs"], group: true),
            ],
            jobs: 2, runner: DryRunRunner())
        #expect(run.startedNames == ["fetch", "docs", "compile", "lint", "link", "build"])
        #expect(run.report.counts.succeeded == 6)
    }

    @Test func chainOf100000OperationsCompletesInOrder() {
        let count = 100_000
        // Every third one a group, so groups chain into groups without recursion.
        let operations = (0..<count).map { index in
            op("c\(index)", index == 0 ? [] : ["c\(index - 1)"], group: index % 3 == 2)
        }
        let run = runEngine(operations, jobs: 4, runner: DryRunRunner())
        #expect(run.recorder.startedIndices == Array(0..<count))
        #expect(run.report.counts.succeeded == count)
        #expect(run.report.exitCode == .success)
    }

    @Test func wideGraphOf100000OperationsRespectsEveryEdge() {
        // A root, 50,000 fanned out from it, 49,998 each joining two neighbours, and one sink.
        let fan = 50_000
        var operations = [op("root")]
        operations += (0..<fan).map {
            op("m\($0)", ["root"], priority: $0 % 7 == 0 ? .high : .normal)
        }
        operations += (0..<fan - 2).map { op("j\($0)", ["m\($0)", "m\($0 + 2)"]) }
        operations.append(op("sink", (0..<fan - 2).map { "j\($0)" }, group: true))
        let run = runEngine(operations, jobs: 3, queueBounds: [], runner: DryRunRunner())
        var position = [Int](repeating: -1, count: run.specs.count)
        for (order, index) in run.recorder.startedIndices.enumerated() { position[index] = order }
        #expect(!position.contains(-1))
        let violations = run.specs.indices.filter { index in
            run.specs[index].prerequisites.contains { position[$0] > position[index] }
        }
        #expect(violations == [])
        #expect(run.report.counts.succeeded == run.specs.count)
    }

    @Test func failureAtTheHeadOfA100000ChainCancelsItAllAsOneDeepTree() {
        let count = 100_000
        let runner = FakeRunner()
        runner.terminations = ["c0": [.exited(1)]]
        let operations = (0..<count).map { index in
            op("c\(index)", index == 0 ? [] : ["c\(index - 1)"])
        }
        let run = runEngine(operations, runner: runner)
        #expect(run.report.counts.failed == 1)
        #expect(run.report.counts.cancelled == count - 1)
        let trees = run.report.failureTrees()
        #expect(trees.count == 1)
        #expect(trees[0].cancelled.map(\.index) == Array(1..<count))
        #expect(trees[0].cancelled.last == FailureTree.Node(index: count - 1, depth: count - 1))
    }
}
