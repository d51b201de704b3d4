import Foundation

/// A small deterministic random generator (SplitMix64, as OpsrunKitTests' own), so a random test
/// can be replayed from its seed.
struct SeededRandom: RandomNumberGenerator {
    /// The seed of this run: `OPSRUN_TEST_SEED` when set (to replay a failure), else a new one.
    /// Every random test names it in each failure it records.
    static let runSeed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["OPSRUN_TEST_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0...UInt64.max)
    }()

    /// How a failure names the seed.
    static var replay: String { "seed \(runSeed); replay with OPSRUN_TEST_SEED=\(runSeed)" }

    private var state: UInt64

    init(seed: UInt64 = SeededRandom.runSeed) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
