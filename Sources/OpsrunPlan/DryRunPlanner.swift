import OpsrunEngine
/// `-n/--dry-run` through the real engine: the operations run on the same bounded queues with a
/// runner that starts nothing, and each round of the loop (what starts between two waits) becomes a
/// wave. So the plan printed is the order the real run would take, with its `-j` and queue bounds,
/// if every command took the same time.
public final class DryRunPlanner: CommandRunner, RunObserver {
    private let runner = DryRunRunner()
    private var round = 0
    private var waves: [[Int]] = []
    /// Services by operation index: the round in which each was told to stop.
    private var stops: [Int: Int] = [:]

    private init() {}

    /// The plan of `specs`, where `specs[i]` is task `taskIDs[i]`.
    /// `upToDate` marks operations that would be skipped; they appear in the wave they would finish in.
    /// `costs`: the expected cost of each operation, as for a run (`OperationEngine`).
    public static func plan(
        specs: [OperationSpec], taskIDs: [Int], configuration: EngineConfiguration,
        upToDate: UpToDateChecking? = nil, costs: (() -> [UInt64])? = nil
    ) -> Plan {
        let planner = DryRunPlanner()
        _ = OperationEngine(
            specs: specs, configuration: configuration, runner: planner, observer: planner, upToDate: upToDate,
            costs: costs
        ).run()
        // Waves are numbered without the empty rounds, so a stop's round is mapped to its wave.
        var waveOfRound: [Int] = []
        var kept = -1
        for wave in planner.waves {
            if !wave.isEmpty { kept += 1 }
            waveOfRound.append(max(kept, 0))
        }
        var stops: [Int: Int] = [:]
        for (index, round) in planner.stops {
            stops[taskIDs[index]] = round - 1 < waveOfRound.count ? waveOfRound[max(round - 1, 0)] : max(kept, 0)
        }
        return Plan(
            waves: planner.waves.filter { !$0.isEmpty }.map { $0.map { taskIDs[$0] } }, serviceStops: stops)
    }

    public func start(_ job: CommandJob) { runner.start(job) }

    public func waitForEvents() -> [RunnerEvent] {
        round += 1
        return runner.waitForEvents()
    }

    public func terminateAll(immediately: Bool) { runner.terminateAll(immediately: immediately) }

    public func terminate(jobID: Int) {
        stops[jobID] = round
        runner.terminate(jobID: jobID)
    }

    public func handle(_ event: RunEvent) {
        switch event {
        case .operationStarted(let index, _), .finished(let index, .upToDate, _):
            while waves.count <= round { waves.append([]) }
            waves[round].append(index)
        default:
            break
        }
    }
}
