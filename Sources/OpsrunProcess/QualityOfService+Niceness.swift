import OpsrunEngine
/// What a quality-of-service class means for a process (docs/manual/running.md).
extension QualityOfService {
    /// The nice value the task's processes get.
    public var niceness: Int32 {
        switch self {
        case .userInteractive, .userInitiated, .default: 0
        case .utility: 5
        case .background: 10
        }
    }

    /// Whether the task's processes get the idle I/O scheduling class.
    public var idleIO: Bool { self == .background }
}
