/// Which tasks need which service, and where each service is (docs/manual/ci.md). Made only for a run that
/// has services: a run without them pays nothing.
struct ServiceTracker {
    /// Per operation, the services it needs (empty for most).
    let servicesOf: [[Int]]
    /// Per service, the tasks that need it: its dependents, and through a group (which runs
    /// nothing) the group's dependents. A task that depends on one of them does not need it.
    let users: [Int: [Int]]
    /// Per service, its users that have not ended yet; at zero it is stopped.
    var remainingUsers: [Int: Int]
    /// When each service became ready.
    var readyAt: [Int: UInt64] = [:]
    /// Ready services whose process still runs (they hold no `-j` slot).
    var live = Set<Int>()
    /// Services the engine asked the runner to stop: their end is `stopped`, not a failure.
    var stopRequested = Set<Int>()
    /// Running dependents terminated because this service exited, by dependent.
    var failedBecauseOf: [Int: Int] = [:]
    /// Services whose prerequisites are done but which no task has needed yet: their dependents
    /// were counted down (to be judged up to date), and they start when one of them must run.
    var dormant = Set<Int>()
    /// Services woken from dormancy: their dependents were counted down already.
    var wokenUp = Set<Int>()
    /// Per service started for them, the operations that must run and wait for it to be ready;
    /// per such operation, how many services it still waits for.
    var waiting: [Int: [Int]] = [:]
    var waitCount: [Int: Int] = [:]

    init(specs: [OperationSpec], graph: DependencyGraph) {
        var servicesOf = [[Int]](repeating: [], count: specs.count)
        var users: [Int: [Int]] = [:]
        var seen = [Bool](repeating: false, count: specs.count)
        for service in specs.indices where specs[service].isService {
            var found: [Int] = []
            var groups: [Int] = []
            var head = 0
            var frontier = [service]
            while head < frontier.count {
                let parent = frontier[head]
                head += 1
                for dependent in graph.dependents(of: parent) where !seen[dependent] {
                    seen[dependent] = true
                    if specs[dependent].isGroup {
                        groups.append(dependent)
                        frontier.append(dependent)
                    } else {
                        found.append(dependent)
                    }
                }
            }
            for user in found {
                seen[user] = false
                servicesOf[user].append(service)
            }
            for group in groups { seen[group] = false }
            users[service] = found
        }
        self.servicesOf = servicesOf
        self.users = users
        remainingUsers = users.mapValues { $0.count }
    }

    var hasLive: Bool { !live.isEmpty }
}
