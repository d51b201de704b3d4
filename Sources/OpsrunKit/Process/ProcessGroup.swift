import Glibc

/// A command's process group: every process it started that did not leave the group.
enum ProcessGroup {
    /// Sends `signal` to every member; false when the group has no member left (ESRCH).
    @discardableResult
    static func send(_ signal: Int32, to processGroup: pid_t) -> Bool {
        kill(-processGroup, signal) == 0
    }

    /// Sends `signal` to the group of a command whose leader has not been reaped yet. The leader
    /// makes its group itself, after `start` has returned; until then the group does not exist
    /// (ESRCH) and the leader gets the signal alone. It blocks every signal until just before
    /// exec, after resetting the dispositions, so the signal takes effect there, before the
    /// command runs, and there is nothing else in its group yet to reach.
    static func send(_ signal: Int32, toGroupLedBy leader: pid_t) {
        if kill(-leader, signal) != 0 && errno == ESRCH { kill(leader, signal) }
    }

    /// The members still running (zombies excluded), found in /proc.
    ///
    /// `kill(-group, 0)` also counts zombies, and an orphaned zombie may stay until init reaps it,
    /// or forever under an init that never does (as in some containers), so it cannot say whether
    /// a group is done. This scan is only made when a terminated command's leader has exited and the
    /// group still answers `kill`.
    static func runningMembers(of processGroup: pid_t) -> [pid_t] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var members: [pid_t] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while let entry = readdir(directory) {
            let pid = withUnsafeBytes(of: entry.pointee.d_name) { name -> pid_t? in
                var value: pid_t = 0
                for byte in name {
                    if byte == 0 { break }
                    guard byte >= 48, byte <= 57 else { return nil }
                    value = value &* 10 &+ pid_t(byte - 48)
                }
                return value > 0 ? value : nil
            }
            guard let pid, let stat = readStat(of: pid, into: &buffer) else { continue }
            if stat.processGroup == processGroup && stat.state != UInt8(ascii: "Z")
                && stat.state != UInt8(ascii: "X")
            {
                members.append(pid)
            }
        }
        return members
    }

    /// State and process group from /proc/<pid>/stat: `pid (comm) S ppid pgrp ...`; the command
    /// name may hold spaces and parentheses, so parsing starts after the last ')'.
    private static func readStat(of pid: pid_t, into buffer: inout [UInt8])
        -> (state: UInt8, processGroup: pid_t)?
    {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard count > 0, let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")) else {
            return nil
        }
        let fields = buffer[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 4, let state = fields[0].first,
            let group = Int32(String(decoding: fields[2], as: UTF8.self))
        else { return nil }
        return (state, group)
    }
}
