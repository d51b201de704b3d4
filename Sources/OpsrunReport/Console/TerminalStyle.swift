/// ANSI colours for what opsrun prints, or none (`--color never`, `NO_COLOR`, not a terminal).
public struct TerminalStyle: Sendable {
    public let enabled: Bool

    public init(enabled: Bool) { self.enabled = enabled }

    /// `--color` resolved against the environment and the output: `NO_COLOR` (any non-empty value) turns
    /// colour off unless `always` is asked for, as no-color.org says.
    public static func resolve(_ choice: ColorChoice, environment: OutputEnvironment, isTerminal: Bool) -> TerminalStyle {
        switch choice {
        case .always: TerminalStyle(enabled: true)
        case .never: TerminalStyle(enabled: false)
        case .auto: TerminalStyle(enabled: isTerminal && !environment.noColor && !environment.dumbTerminal)
        }
    }

    public func red(_ s: String) -> String { paint(s, "31") }
    public func green(_ s: String) -> String { paint(s, "32") }
    public func yellow(_ s: String) -> String { paint(s, "33") }
    public func cyan(_ s: String) -> String { paint(s, "36") }
    public func bold(_ s: String) -> String { paint(s, "1") }
    public func dim(_ s: String) -> String { paint(s, "2") }

    private func paint(_ s: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
    }
}
