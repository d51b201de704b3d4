/// Parses the durations of `timeout:`: `250ms`, `90s`, `10m`, `1h30m`, `1h2m3s500ms`.
///
/// Units h, m, s, ms, each at most once and in that order, each with a whole number.
enum TimeoutDuration {
    enum Value: Equatable {
        case milliseconds(Int)
        /// Not a duration at all.
        case malformed
        /// Longer than `limitMilliseconds`.
        case tooLong
    }

    /// One week: longer than any build step should run, and far from any overflow downstream.
    static let limitMilliseconds = 168 * 3_600_000

    static func parse(_ text: String) -> Value {
        let units: [(name: String, milliseconds: Int)] = [("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1)]
        var bytes = Substring(text).utf8[...]
        var total = 0
        var nextUnit = 0  // units must come in decreasing order, each once
        var tooLong = false
        guard !bytes.isEmpty else { return .malformed }
        while !bytes.isEmpty {
            let digits = bytes.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard !digits.isEmpty else { return .malformed }
            bytes = bytes.dropFirst(digits.count)
            let letters = bytes.prefix { $0 == UInt8(ascii: "h") || $0 == UInt8(ascii: "m") || $0 == UInt8(ascii: "s") }
            bytes = bytes.dropFirst(letters.count)
            let unitName = String(decoding: letters, as: UTF8.self)
            guard let index = units.firstIndex(where: { $0.name == unitName }), index >= nextUnit else { return .malformed }
            nextUnit = index + 1
            // Past the limit the exact value no longer matters; avoid overflow on long digit runs.
            guard !tooLong, digits.count <= 12, let number = Int(String(decoding: digits, as: UTF8.self)) else {
                tooLong = true
                continue
            }
            total += number * units[index].milliseconds
            if total > limitMilliseconds { tooLong = true }
        }
        return tooLong ? .tooLong : .milliseconds(total)
    }
}

/// `--grace` on the command line takes the same durations as `timeout:`.
public enum GraceDuration {
    /// Milliseconds, or `nil` when `text` is not a duration (`0s` is allowed: kill at once).
    public static func milliseconds(_ text: String) -> Int? {
        if text.allSatisfy({ $0 == "0" || $0 == "s" || $0 == "m" }) && text.first == "0" { return 0 }
        if case .milliseconds(let value) = TimeoutDuration.parse(text) { return value }
        return nil
    }
}
