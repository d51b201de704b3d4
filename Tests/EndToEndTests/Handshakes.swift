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

/// A FIFO that tasks wait at (`gate.wait`: `read -r go < GATE`) until the test lets them through.
///
/// The test holds it open for reading and writing, so a task's open never blocks and nothing
/// written is lost; each `release` writes one newline per task let through, and a shell's `read`
/// takes one byte at a time from a pipe, so each newline ends exactly one task's wait. When the
/// gate goes (the test ends), waiting tasks read end-of-file and go on: none is left blocked.
final class Gate {
    let path: String
    private let directory: String
    private var descriptor: Int32

    init() throws {
        var template = Array("/tmp/opsrun-gate-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        directory = String(cString: made)
        path = directory + "/gate"
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    /// Lets `count` waiting (or yet to wait) tasks through.
    func release(_ count: Int = 1) {
        let newlines = [UInt8](repeating: UInt8(ascii: "\n"), count: count)
        _ = newlines.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    /// What a task runs to wait at the gate.
    var wait: String { "read -r go < \(path)" }

    deinit {
        close(descriptor)
        unlink(path)
        rmdir(directory)
    }
}

/// Waits (at most a second) until the kernel's coarse clock, which stamps file times, has passed
/// the newest file's under `directory`: a compile started after this sees every file as older
/// than itself (one written in the same clock tick would count as changed while it ran, and its
/// task would run again next time, as opsrun rightly does for a file it cannot trust).
func waitUntilFileTimesArePast(in directory: String) {
    func coarseNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
    var newest: Int64 = 0
    let files = FileManager.default.enumerator(atPath: directory)
    while let relative = files?.nextObject() as? String {
        var raw = stat()
        guard stat(directory + "/" + relative, &raw) == 0 else { continue }
        newest = max(newest, Int64(raw.st_ctim.tv_sec) * 1_000_000_000 + Int64(raw.st_ctim.tv_nsec))
    }
    let deadline = coarseNow() + 1_000_000_000
    while coarseNow() <= newest, coarseNow() < deadline { sched_yield() }
}
