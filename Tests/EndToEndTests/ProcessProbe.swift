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

    /// The state letter of `/proc/PID/stat` (R, S, T stopped, Z zombie...); nil when it is gone.
    static func state(of pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"), stat.index(close, offsetBy: 2) < stat.endIndex
        else { return nil }
        return stat[stat.index(close, offsetBy: 2)]
    }

    /// The parent of `pid` and its process group, from `/proc/PID/stat`; nil when it is gone.
    static func parentAndGroup(of pid: Int32) -> (parent: Int32, group: Int32)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let parent = Int32(fields[1]), let group = Int32(fields[2]) else { return nil }
        return (parent, group)
    }

    /// The processes of process group `group` (zombies included), from `/proc`.
    static func members(ofGroup group: Int32) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap(Int32.init).filter { parentAndGroup(of: $0)?.group == group }
    }

    /// Whether no process of `group` runs: each is stopped (state T), or a zombie its stopped
    /// parent has not reaped, or gone since the scan; and the group has a stopped one at least.
    static func isStopped(group: Int32) -> Bool {
        let states = members(ofGroup: group).map { state(of: $0) }
        return states.contains("T") && states.allSatisfy { $0 == "T" || $0 == "Z" || $0 == nil }
    }

    /// The signals the process (its main thread) blocks, bit N-1 for signal N.
    static func blockedSignals(of pid: Int32) -> UInt64? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") })
        else { return nil }
        return UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    }

    /// What each open descriptor of the process refers to (`pipe:[...]`, `anon_inode:[pidfd]`...).
    static func descriptorTargets(of pid: Int32) -> [String] {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)") }
    }
}
