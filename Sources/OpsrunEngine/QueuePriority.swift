/// `OperationQueue`'s five priorities, with Foundation's raw values.
public enum QueuePriority: Int, CaseIterable, Comparable, Sendable {
    case veryLow = -8, low = -4, normal = 0, high = 4, veryHigh = 8

    /// As written in a manifest: `very-low`, `low`, `normal`, `high`, `very-high`.
    public var name: String {
        switch self {
        case .veryLow: "very-low"
        case .low: "low"
        case .normal: "normal"
        case .high: "high"
        case .veryHigh: "very-high"
        }
    }

    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    public static func < (a: QueuePriority, b: QueuePriority) -> Bool { a.rawValue < b.rawValue }
}
