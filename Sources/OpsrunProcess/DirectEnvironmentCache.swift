import OpsrunEngine
/// The environment of a command run without the shell (`DirectEnvironment`), job after job,
/// worked out again only where the job's environment differs from the previous one.
///
/// Jobs' environments usually differ only in `OPSRUN_TASK`: when the job's shared block is the
/// very array of the previous job's (`JobEnvironment.sameStorage`) in the same directory, only
/// that entry is swapped, in the entries and in the C block. Otherwise an entry whose name is
/// unchanged keeps its place in the result, so only its value is swapped in; a different working
/// directory, a different number of entries, a renamed entry or a changed `PWD` rebuild it all.
/// The `PWD` the shell would set is worked out once per working directory and inherited `PWD`.
/// One per job slot (`ChildLaunch`): its C block is what the slot's child reads until exec.
final class DirectEnvironmentCache {
    private var source: [String] = []
    private var workingDirectory: String?
    /// For each entry of `source`, its index in `entries`, or -1.
    private var positions: [Int] = []
    /// The direct environment for the environment last given to `update` (kept by the block
    /// alone: a second reference would make every swap copy the array).
    var entries: [String] { block.entries }
    /// Indices where the new environment differs from `source`, reused from job to job.
    private var changed: [Int] = []
    private var pwds: [String: String] = [:]
    /// The PATH directly-run programs are looked up in (the last one given).
    private(set) var searchPath: String?
    private let block = EnvironmentBlock()
    /// The job environment `source` was made from.
    private var previous = PreviousJobEnvironment()

    /// Makes the cache hold the direct environment for `environment` in `workingDirectory`, and
    /// `environmentBlock` its C form.
    func update(environment: JobEnvironment, workingDirectory: String) {
        if workingDirectory == self.workingDirectory {
            switch previous.difference(to: environment) {
            case .none:
                return
            case .task(let entry, let index):
                source[index] = entry
                if positions[index] >= 0 { block.replace(at: positions[index], with: entry) }
                return
            case .other:
                break
            }
        }
        update(entries: environment.entries, workingDirectory: workingDirectory)
        previous.remember(environment)
    }

    /// The `envp` of `entries`, valid until the next `update`.
    var environmentBlock: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> { block.current }

    private func update(entries environment: [String], workingDirectory: String) {
        if workingDirectory == self.workingDirectory, environment.count == source.count,
            applyChanges(environment)
        {
            source = environment
            return
        }
        rebuild(environment, workingDirectory: workingDirectory)
    }

    /// Swaps in changed values of unchanged names; false (and nothing changed) for anything else.
    private func applyChanges(_ environment: [String]) -> Bool {
        changed.removeAll(keepingCapacity: true)
        for index in environment.indices where environment[index] != source[index] {
            let name = DirectEnvironment.name(of: environment[index])
            guard name == DirectEnvironment.name(of: source[index]), name != "PWD" else {
                return false
            }
            changed.append(index)
        }
        var updated = block.entries
        for index in changed where positions[index] >= 0 {
            updated[positions[index]] = environment[index]
            if DirectEnvironment.name(of: environment[index]) == "PATH" {
                searchPath = DirectEnvironment.searchPath(in: [environment[index]])
            }
        }
        block.pointer(for: updated)
        return true
    }

    private func rebuild(_ environment: [String], workingDirectory: String) {
        let made = DirectEnvironment.make(from: environment) { inherited in
            let key = workingDirectory + (inherited.map { "\u{0}" + $0 } ?? "")
            if let known = pwds[key] { return known }
            let pwd = DirectEnvironment.shellPWD(
                inherited: inherited, workingDirectory: workingDirectory)
            pwds[key] = pwd
            return pwd
        }
        source = environment
        self.workingDirectory = workingDirectory
        block.pointer(for: made.entries)
        positions = made.positions
        searchPath = DirectEnvironment.searchPath(in: environment)
    }
}
