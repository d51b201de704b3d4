import Foundation

/// An output cache directory of one test's own (`OPSRUN_CACHE_DIR`), removed with the test's suite
/// value: a suite's `let` keeps it for the whole test.
final class TemporaryCacheDirectory: Sendable {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-cache-\(UUID().uuidString)").path

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
