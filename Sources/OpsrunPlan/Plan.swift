/// In what order and in which waves the tasks of a run would execute: what `-n` prints.
///
/// Made by `DryRunPlanner`, which runs the operations through the real engine with a runner that
/// starts nothing, so the waves follow the same bounds and the same queue order (priority, then
/// critical path, then manifest order) as a real run.
public struct Plan: Sendable, Equatable {
    /// Task ids (of the `TaskGraph`) per wave, in the order they would start.
    public let waves: [[Int]]
    /// Services by task id: the wave (0-based) after which each would be stopped (docs/manual/ci.md).
    public let serviceStops: [Int: Int]

    public init(waves: [[Int]], serviceStops: [Int: Int] = [:]) {
        self.waves = waves
        self.serviceStops = serviceStops
    }
}
