import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Polls `condition` every 10 ms until it holds; false, and an issue saying what was awaited,
/// when it does not within `seconds`.
@discardableResult
func waitUntil(
    _ what: String, seconds: Double = OpsrunBinary.defaultDeadlineSeconds,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else {
            Issue.record("waited \(seconds) s for \(what)", sourceLocation: sourceLocation)
            return false
        }
        usleep(10_000)
    }
    return true
}
