import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits, each with a deadline, for what tests of processes watch: a file a task writes as its
/// handshake, a process that must be gone.
enum ProcessProbe {
    /// Alive and not a zombie waiting to be reaped.
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        let state = stat.split(separator: ")").last?.split(separator: " ").first
        return state != "Z"
    }

    /// Whether `pid` is gone (or a zombie) within `seconds`.
    static func isGone(_ pid: Int32, within seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isAlive(pid) {
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    /// The pid a task wrote to `path`, once the file holds a whole line; nil when it does not
    /// within `seconds`.
    static func pid(writtenTo path: String, within seconds: Double = 60) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n"),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return pid
            }
            usleep(10_000)
        }
        return nil
    }
}
