import OpsrunKit
@testable import OpsrunEngine

/// A task of an engine test, with prerequisites by name; `group` gives it no commands.
struct TestOperation {
    var name: String
    var deps: [String] = []
    var priority: QueuePriority = .normal
    var queue: Int? = nil
    var group = false
    var retries = 0
    var allowFailure = false
    var interactive = false
    /// A service (docs/manual/ci.md): the fake runner makes it ready after `FakeRunner.readyAfter` ticks.
    var service = false
}

func op(
    _ name: String, _ deps: [String] = [], priority: QueuePriority = .normal, queue: Int? = nil,
    group: Bool = false, retries: Int = 0, allowFailure: Bool = false, interactive: Bool = false,
    service: Bool = false
) -> TestOperation {
    TestOperation(
        name: name, deps: deps, priority: priority, queue: queue, group: group, retries: retries,
        allowFailure: allowFailure, interactive: interactive, service: service)
}

/// The specs of `operations`, names resolved to indices in the order given.
func makeSpecs(_ operations: [TestOperation]) -> [OperationSpec] {
    let index = Dictionary(uniqueKeysWithValues: operations.enumerated().map { ($1.name, $0) })
    return operations.map { operation in
        var job = CommandJob(
            id: -1, taskName: operation.name,
            commands: operation.group ? [] : ["run \(operation.name)"], workingDirectory: "/",
            environment: [])
        if operation.service { job.service = ServiceReadiness(probe: "probe \(operation.name)") }
        return OperationSpec(
            name: operation.name, prerequisites: operation.deps.map { index[$0]! },
            priority: operation.priority, queue: operation.queue, job: job,
            retries: operation.retries, allowFailure: operation.allowFailure,
            interactive: operation.interactive)
    }
}

/// A finished run of the engine: its report, events, and names to read them by.
struct EngineRun {
    var report: RunReport
    var recorder: EventRecorder
    var specs: [OperationSpec]

    func index(_ name: String) -> Int { specs.firstIndex { $0.name == name }! }
    func state(_ name: String) -> OperationState { report.operations[index(name)].state }
    /// Names in the order their first attempt started, groups included.
    var startedNames: [String] { recorder.startedIndices.map { specs[$0].name } }
}

/// `costs`: each operation's expected cost (its last recorded duration), by name; 1 when not given.
func runEngine(
    _ operations: [TestOperation], jobs: Int = 1, queueBounds: [Int] = [], keepGoing: Bool = false,
    runner: CommandRunner, upToDate: UpToDateChecking? = nil, costs: [String: UInt64]? = nil
) -> EngineRun {
    let specs = makeSpecs(operations)
    let recorder = EventRecorder()
    let engine = OperationEngine(
        specs: specs,
        configuration: EngineConfiguration(
            maxConcurrentOperationCount: jobs, queueBounds: queueBounds, keepGoing: keepGoing),
        runner: runner, observer: recorder, upToDate: upToDate,
        costs: costs.map { costs in { specs.map { costs[$0.name] ?? 1 } } })
    return EngineRun(report: engine.run(), recorder: recorder, specs: specs)
}

/// An up-to-date checker that answers by name from a script (`.mustRun` for names not in it), and
/// remembers what it was asked and told.
final class ScriptedChecker: UpToDateChecking {
    let specs: [OperationSpec]
    let decisions: [String: UpToDateDecision]
    private(set) var decided: [String] = []
    private(set) var interruptions = 0

    init(_ operations: [TestOperation], decisions: [String: UpToDateDecision]) {
        specs = makeSpecs(operations)
        self.decisions = decisions
    }

    func decide(_ index: Int) -> UpToDateDecision {
        decided.append(specs[index].name)
        return decisions[specs[index].name] ?? .mustRun
    }

    func willRun(_ index: Int) {}
    func didEnd(_ index: Int, succeeded: Bool) {}
    func runInterrupted() { interruptions += 1 }
}
