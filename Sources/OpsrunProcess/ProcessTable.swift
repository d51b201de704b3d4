import Glibc

/// The system's processes as /proc lists them: what opsrun needs of each to find a group's
/// members or its own children.
enum ProcessTable {
    struct Entry {
        var pid: pid_t
        /// `R`, `S`, `D`, `Z` (a zombie), ...
        var state: UInt8
        var parent: pid_t
        var processGroup: pid_t

        /// Exited and not reaped yet (or being reaped).
        var isZombie: Bool { state == UInt8(ascii: "Z") || state == UInt8(ascii: "X") }
    }

    /// Every process whose entry `include`s, read from /proc; a scan, so only for rare paths.
    static func processes(where include: (Entry) -> Bool) -> [Entry] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var entries: [Entry] = []
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
            guard let pid, let stat = readStat(of: pid, into: &buffer), include(stat) else { continue }
            entries.append(stat)
        }
        return entries
    }

    /// From /proc/<pid>/stat: `pid (comm) S ppid pgrp ...`; the command name may hold spaces and
    /// parentheses, so parsing starts after the last ')'.
    private static func readStat(of pid: pid_t, into buffer: inout [UInt8]) -> Entry? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard count > 0, let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")) else {
            return nil
        }
        let fields = buffer[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 4, let state = fields[0].first,
            let parent = Int32(String(decoding: fields[1], as: UTF8.self)),
            let group = Int32(String(decoding: fields[2], as: UTF8.self))
        else { return nil }
        return Entry(pid: pid, state: state, parent: parent, processGroup: group)
    }
}
