import Glibc
import OpsrunEngine

/// An `envp` for a child, kept from one spawn to the next and updated in place.
///
/// Every task's environment is the same shared block plus its own `OPSRUN_TASK` (docs/manual/manifest.md), so
/// from one job to the next only an entry or two differ: those are the only ones copied again.
/// When the job's shared block is the very array of the previous job (`JobEnvironment`), only
/// `OPSRUN_TASK` is looked at; otherwise every entry is compared, which is cheap too, as unchanged
/// entries share their storage. A child reads its block until it execs, while opsrun goes on, so
/// each job slot has its own (`ChildLaunch`), updated only once the slot's previous child has been
/// reaped. Measured: building the block afresh for each spawn made 2,000 `/bin/true` at `-j 2`
/// 1.06× as long (fan-in; chain 1.04×; Benchmarks/README.md).
final class EnvironmentBlock {
    /// The entries the C strings were made from.
    private(set) var entries: [String] = []
    /// The job environment they were last made from, when they were (see `pointer(for:)`).
    private var previous = PreviousJobEnvironment()
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

    /// The block as last made.
    var current: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> { strings }

    /// The NULL-terminated block for `environment.entries`, valid until the next call.
    func pointer(for environment: JobEnvironment) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
        switch previous.difference(to: environment) {
        case .none:
            return strings
        case .task(let entry, let index):
            swapEntry(at: index, with: entry)
            return strings
        case .other:
            let block = pointer(for: environment.entries)
            previous.remember(environment)
            return block
        }
    }

    /// The NULL-terminated block for `newEntries`, valid until the next call.
    @discardableResult
    func pointer(for newEntries: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
        previous.forget()
        if newEntries.count == entries.count {
            for index in newEntries.indices where newEntries[index] != entries[index] {
                free(strings[index])
                strings[index] = newEntries[index].withCString { strdup($0) }
            }
        } else {
            rebuild(newEntries)
        }
        entries = newEntries
        return strings
    }

    /// Swaps one entry, the caller knowing that no other changed; returns the block.
    @discardableResult
    func replace(at index: Int, with entry: String) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
        previous.forget()
        swapEntry(at: index, with: entry)
        return strings
    }

    private func swapEntry(at index: Int, with entry: String) {
        entries[index] = entry
        free(strings[index])
        strings[index] = entry.withCString { strdup($0) }
    }

    private func rebuild(_ newEntries: [String]) {
        for index in entries.indices { free(strings[index]) }
        if newEntries.count > capacity {
            strings.deallocate()
            capacity = newEntries.count
            strings = .allocate(capacity: capacity + 1)
        }
        for (index, entry) in newEntries.enumerated() { strings[index] = entry.withCString { strdup($0) } }
        strings[newEntries.count] = nil
    }
}
