// opsrun-scheduler-bench: issue 4's third target, the scheduler alone. 100,000 operations (a chain
// and a layered DAG) go through OperationEngine with a runner that starts nothing and an observer
// that ignores every event, at -j 2; prints the median wall time of each over several rounds.
//
// Usage: opsrun-scheduler-bench [--tasks N] [--rounds R]

import Glibc
import OpsrunEngine

/// Ignores every event: the cost measured is the engine's own.
final class NoObserver: RunObserver {
    func handle(_ event: RunEvent) {}
}

func job(_ index: Int) -> CommandJob {
    CommandJob(
        id: index, taskName: "t\(index)", commands: ["/bin/true"], workingDirectory: "/",
        environment: [])
}

/// t0 ← t1 ← t2 ...: each operation waits for the one before.
func chain(_ count: Int) -> [OperationSpec] {
    (0..<count).map { index in
        OperationSpec(name: "t\(index)", prerequisites: index == 0 ? [] : [index - 1], job: job(index))
    }
}

/// Layers of ⌈√N⌉; each operation depends on 1–4 operations of the layer before (seeded, like
/// Benchmarks/generate.py's DAG).
func layeredDAG(_ count: Int) -> [OperationSpec] {
    var width = 1
    while width * width < count { width += 1 }
    var state: UInt64 = 42
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    return (0..<count).map { index in
        let layer = index / width
        var prerequisites: [Int] = []
        if layer > 0 {
            let first = (layer - 1) * width
            for _ in 0...next(4) {
                let candidate = first + next(width)
                if !prerequisites.contains(candidate) { prerequisites.append(candidate) }
            }
        }
        return OperationSpec(name: "t\(index)", prerequisites: prerequisites, job: job(index))
    }
}

func seconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func usage() -> Never {
    let text = "usage: opsrun-scheduler-bench [--tasks N] [--rounds R]\n"
    _ = write(2, text, text.utf8.count)
    exit(2)
}

var tasks = 100_000
var rounds = 5
var arguments = CommandLine.arguments.dropFirst()
while let option = arguments.popFirst() {
    guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else {
        usage()
    }
    switch option {
    case "--tasks": tasks = value
    case "--rounds": rounds = value
    default:
        usage()
    }
}

for (shape, specs) in [("chain", chain(tasks)), ("dag", layeredDAG(tasks))] {
    var times: [Double] = []
    for _ in 0..<rounds {
        let start = seconds()
        let engine = OperationEngine(
            specs: specs, configuration: EngineConfiguration(maxConcurrentOperationCount: 2),
            runner: DryRunRunner(), observer: NoObserver())
        let report = engine.run()
        times.append(seconds() - start)
        _ = report
    }
    times.sort()
    let median = times[times.count / 2]
    // One line per shape, read by Benchmarks/bench.py: shape, tasks, median and fastest seconds.
    print("\(shape) \(tasks) \(String(format6(median))) \(String(format6(times[0])))")
}

func format6(_ value: Double) -> String {
    let micro = Int((value * 1_000_000).rounded())
    let fraction = String(micro % 1_000_000)
    return "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
}
