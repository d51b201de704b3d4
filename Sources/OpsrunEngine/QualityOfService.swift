/// Foundation's quality-of-service classes (docs/manual/running.md); Process maps them to niceness.
public enum QualityOfService: String, CaseIterable, Sendable {
    case userInteractive = "user-interactive"
    case userInitiated = "user-initiated"
    case `default` = "default"
    case utility = "utility"
    case background = "background"
}
