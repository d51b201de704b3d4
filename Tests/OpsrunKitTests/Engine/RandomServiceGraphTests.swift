import OpsrunKit
import Testing
@testable import OpsrunEngine

/// Random runs with services (docs/manual/ci.md): random DAGs where some tasks are services that become
/// ready late, exit on their own or never, some tasks fail or are up to date, `-k` or not, and
/// an interrupt or not, from one seed each. Whatever happens, the rules hold.
@Suite struct RandomServiceGraphTests {
    @Test func randomRunsWithServicesKeepTheirRules() {
        var serviceEnds = Set<String>()
        for seed in UInt64(0)..<400 {
            serviceEnds.formUnion(check(seed: seed))
        }
        // The seeds reach every way a service can end.
        #expect(serviceEnds == ["stopped", "failed", "upToDate", "cancelled"])
    }

    /// How the run's services ended.
    private func check(seed: UInt64) -> Set<String> {
        var random = SplitMix64(seed: seed &+ 7919)
        let count = Int.random(in: 1...30, using: &random)
        let runner = FakeRunner()
        var operations: [TestOperation] = []
        var decisions: [String: UpToDateDecision] = [:]
        for index in 0..<count {
            let name = "t\(index)"
            var operation = op(name)
            if index > 0 {
                let deps = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    "t\(Int.random(in: 0..<index, using: &random))"
                }
                operation.deps = Array(Set(deps)).sorted()
            }
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                operation.service = true
                runner.readyAfter[name] = Int.random(in: 1...4, using: &random)
                if Bool.random(using: &random) {
                    // Exits on its own at some point, maybe while needed, maybe before ready.
                    runner.durations[name] = Int.random(in: 1...12, using: &random)
                    runner.terminations[name] = [.exited(Int32.random(in: 0...1, using: &random))]
                }
            case 2:
                operation.group = true
            default:
                runner.durations[name] = Int.random(in: 1...5, using: &random)
                if Int.random(in: 0..<6, using: &random) == 0 { runner.terminations[name] = [.exited(2)] }
                if Int.random(in: 0..<5, using: &random) == 0 { decisions[name] = .upToDate }
            }
            operations.append(operation)
        }
        if Int.random(in: 0..<4, using: &random) == 0 {
            runner.signals = [(tick: Int.random(in: 0...10, using: &random), signal: SignalNumber.interrupt)]
        }
        let jobs = Int.random(in: 1...3, using: &random)
        let keepGoing = Bool.random(using: &random)
        let checker = ScriptedChecker(operations, decisions: decisions)
        let run = runEngine(operations, jobs: jobs, keepGoing: keepGoing, runner: runner, upToDate: checker)
        let where_ = "seed \(seed)"

        // Every operation ended (the report says so by construction); every service is down.
        #expect(run.report.operations.allSatisfy { $0.state.isEnded }, "\(where_)")
        #expect(run.report.operations.indices.allSatisfy { index in
            operations[index].service || run.report.operations[index].state != .finished(.stopped)
        }, "\(where_)")
        // A task that started had each service it depends on ready before it.
        var readyServices = Set<Int>()
        for event in run.recorder.events {
            switch event {
            case .serviceReady(let index, _):
                readyServices.insert(index)
            case .operationStarted(let index, 1) where !operations[index].group:
                for dep in operations[index].deps {
                    let prerequisite = run.index(dep)
                    if operations[prerequisite].service {
                        #expect(readyServices.contains(prerequisite), "\(where_): \(operations[index].name) started before \(dep) was ready")
                    }
                }
            default:
                break
            }
        }
        // A service ends stopped, failed, up to date (never needed) or cancelled; never succeeded.
        for index in operations.indices where operations[index].service {
            #expect(run.report.operations[index].state != .finished(.succeeded), "\(where_)")
        }
        // Without failures or an interrupt, the run succeeds.
        if run.report.counts.failed == 0 && run.report.signal == nil {
            #expect(run.report.exitCode == .success, "\(where_)")
        }
        return Set(operations.indices.filter { operations[$0].service }.map { index in
            switch run.report.operations[index].state {
            case .finished(.stopped): "stopped"
            case .finished(.failed): "failed"
            case .finished(.upToDate): "upToDate"
            case .cancelled: "cancelled"
            default: "other"
            }
        })
    }
}
