import Glibc

/// An `envp` for a child, kept from one spawn to the next and updated in place.
///
/// Every task's environment is the same shared block plus its own `OPSRUN_TASK` (SPEC §2), so
/// from one job to the next only an entry or two differ: those are the only ones copied again.
/// The comparison is cheap, as the unchanged entries share their storage. A child reads its block
/// until it execs, while opsrun goes on, so each job slot has its own (`ChildLaunch`), updated
/// only once the slot's previous child has been reaped.
final class EnvironmentBlock {
    /// The entries the C strings were made from.
    private var entries: [String] = []
    private var strings: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private var capacity: Int

    init() {
        capacity = 0
        strings = .allocate(capacity: 1)
        strings[0] = nil
    }

    deinit {
        for index in entries.indices { free(strings[index]) }
        strings.deallocate()
    }

    /// The NULL-terminated block for `newEntries`, valid until the next call.
    func pointer(for newEntries: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
        if newEntries.count == entries.count {
            for index in newEntries.indices where newEntries[index] != entries[index] {
                free(strings[index])
                strings[index] = strdup(newEntries[index])
            }
        } else {
            rebuild(newEntries)
        }
        entries = newEntries
        return strings
    }

    private func rebuild(_ newEntries: [String]) {
        for index in entries.indices { free(strings[index]) }
        if newEntries.count > capacity {
            strings.deallocate()
            capacity = newEntries.count
            strings = .allocate(capacity: capacity + 1)
        }
        for (index, entry) in newEntries.enumerated() { strings[index] = strdup(entry) }
        strings[newEntries.count] = nil
    }
}
