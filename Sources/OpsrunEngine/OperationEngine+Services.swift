/// Services (docs/manual/ci.md): an operation that becomes ready for its dependents while its process
/// runs on, holds no slot once ready, and is stopped when the last task that needs it has ended.
extension OperationEngine {
    /// An operation that must run, now ready: `true` when it waits for a service it needs that is
    /// not ready yet (starting that one if it is dormant); it is queued when they all are.
    ///
    /// A service that tasks need is dormant once its prerequisites are done: its dependents are
    /// counted down at once, so that each is judged up to date on its own, and it starts only
    /// when one of them must run. A service nothing needs (`opsrun db`) starts at once.
    func holdForServices(_ index: Int) -> Bool {
        guard var tracker = services else { return false }
        let needed = tracker.servicesOf[index].filter { tracker.readyAt[$0] == nil }
        guard !needed.isEmpty else { return false }
        tracker.waitCount[index] = needed.count
        for service in needed { tracker.waiting[service, default: []].append(index) }
        services = tracker
        for service in needed { wake(service) }
        return true
    }

    /// A service tasks need, its prerequisites done: dormant until one of them must run (it is
    /// not even judged before: `--explain` says why it runs when it does).
    func becomesDormant(_ index: Int) -> Bool {
        guard var tracker = services, specs[index].isService, tracker.remainingUsers[index, default: 0] > 0,
            !tracker.wokenUp.contains(index)
        else { return false }
        tracker.dormant.insert(index)
        services = tracker
        countDownDependents(of: index)
        return true
    }

    /// A service's prerequisites are all done (it is settled for the first time): when one of them
    /// ran in this run, a process kept up for it by an earlier run of `--watch` is stale (a new
    /// port, a new config), and the runner stops it; the service starts afresh when needed, and
    /// must be ready again (docs/manual/watch.md).
    func servicePrerequisitesDone(_ index: Int) {
        guard specs[index].isService, services?.wokenUp.contains(index) == false, anyRan(specs[index].prerequisites)
        else { return }
        runner.discardKeptService(like: specs[index].job)
    }

    /// The run ended: a service cancelled before its prerequisites were all done (one failed, or
    /// an interrupt) is stale too when one of them ran, though it was never settled: the next run
    /// may find them all up to date.
    func discardStaleServicesNotStarted() {
        guard let users = services?.users else { return }
        for service in users.keys.sorted() {
            guard case .cancelled = states[service], attempts[service] == 0, anyRan(specs[service].prerequisites)
            else { continue }
            runner.discardKeptService(like: specs[service].job)
        }
    }

    /// Whether one of `prerequisites` ran in this run: its commands, or a restore from the output
    /// cache (which rewrote its outputs too); through groups, which run nothing themselves.
    private func anyRan(_ prerequisites: [Int]) -> Bool {
        prerequisites.contains { prerequisite in
            switch states[prerequisite] {
            case .finished(.succeeded): specs[prerequisite].isGroup ? anyRan(specs[prerequisite].prerequisites) : true
            case .finished(.failedAllowed), .finished(.restored): true
            default: false
            }
        }
    }

    /// A dormant service is needed: it is settled as any ready operation (judged, then queued
    /// after the services it needs itself).
    private func wake(_ service: Int) {
        guard services?.dormant.remove(service) != nil else { return }
        services?.wokenUp.insert(service)
        newlyReady.append(service)
    }

    private func countDownDependents(of index: Int) {
        for dependent in graph.dependents(of: index) {
            unmetPrerequisites[dependent] -= 1
            if unmetPrerequisites[dependent] == 0 && states[dependent] == .pending {
                makeReady(dependent)
            }
        }
    }

    /// The probe succeeded (or the service started, without one): its slot goes back to the
    /// queue, and what waited for it is queued (or, for a service nothing needed, its dependents
    /// count it as done).
    func serviceBecameReady(_ index: Int, at nanoseconds: UInt64) {
        guard var tracker = services, states[index] == .executing, tracker.readyAt[index] == nil,
            !tracker.stopRequested.contains(index)
        else { return }
        tracker.readyAt[index] = nanoseconds
        tracker.live.insert(index)
        let waiters = tracker.waiting.removeValue(forKey: index) ?? []
        var runnable: [Int] = []
        for waiter in waiters where states[waiter] == .ready {
            tracker.waitCount[waiter, default: 1] -= 1
            if tracker.waitCount[waiter] == 0 {
                tracker.waitCount[waiter] = nil
                runnable.append(waiter)
            }
        }
        services = tracker
        releaseSlot(index)
        observer.handle(.serviceReady(index: index, nanoseconds: nanoseconds))
        if !tracker.wokenUp.contains(index) { countDownDependents(of: index) }
        for waiter in runnable { enqueue(waiter) }
        if tracker.remainingUsers[index] == 0 { stopService(index) }
    }

    /// The service's job ended: stopped as asked (or by an interrupt), or on its own, which fails it.
    func serviceFinished(_ index: Int, _ result: JobResult) {
        precondition(states[index] == .executing, "the runner finished service \(index), which is not executing")
        guard var tracker = services else { return }
        record(index, result)
        let wasReady = tracker.live.remove(index) != nil
        services = tracker
        let stopped = tracker.stopRequested.contains(index)
        if !wasReady { releaseSlot(index) }
        if let cause = tracker.failedBecauseOf[index], !stopped {
            // A service that needed another, which exited.
            let exit = lastResults[cause]?.termination ?? .exited(255)
            lastResults[index]?.serviceFailure = .serviceExited(name: specs[cause].name, exit)
        }
        if stopped || (wasReady && signal != nil) {
            end(index, .finished(.stopped))
        } else if let signal {
            end(index, .cancelled(.interrupted(signal: signal)))
        } else if !wasReady {
            if result.succeeded {
                lastResults[index]?.serviceFailure = .exitedBeforeReady
            }
            fail(index)
            // Its dependents were counted down while it was dormant: what waits for it, or would,
            // is cancelled here, through groups too.
            failUsers(of: index)
        } else {
            // Exited while tasks needed it. Not `fail`: its dependents were counted down already.
            if lastResults[index]?.serviceFailure == nil { lastResults[index]?.serviceFailure = .exitedWhileNeeded }
            end(index, .finished(.failed))
            failUsers(of: index)
            stopAfterFailure(of: index)
        }
    }

    /// A service exited while needed: its running users are terminated (and fail with
    /// `service 'db' exited`); what has not started and depends on it, directly or through
    /// groups, is cancelled with it as the cause, and so in turn is what depends on those. A
    /// running user's dependents are left to its failure, which names it.
    private func failUsers(of service: Int) {
        // (operation, the nearest cancelled operation on the way, or the service)
        var queue = [(service, service)]
        var visited = Set<Int>()
        var head = 0
        while head < queue.count {
            let (parent, via) = queue[head]
            head += 1
            for dependent in graph.dependents(of: parent) where visited.insert(dependent).inserted {
                switch states[dependent] {
                case .executing:
                    services?.failedBecauseOf[dependent] = service
                    runner.terminate(jobID: dependent)
                case .pending, .ready:
                    let cause: CancellationCause = via == service
                        ? .prerequisiteFailed(prerequisite: service)
                        : .prerequisiteCancelled(prerequisite: via, root: service)
                    end(dependent, .cancelled(cause))
                    queue.append((dependent, dependent))
                case .finished where specs[dependent].isGroup:
                    // A group that finished when the service became ready passes it on.
                    queue.append((dependent, via))
                case .finished, .cancelled:
                    break
                }
            }
        }
    }

    /// An operation ended: each service it needed has one user fewer, and stops at none.
    func serviceUserEnded(_ index: Int) {
        guard let needed = services?.servicesOf[index], !needed.isEmpty else { return }
        for service in needed {
            services?.remainingUsers[service, default: 1] -= 1
            if services?.remainingUsers[service] == 0 { stopService(service) }
        }
    }

    /// Asks the runner to stop a running service (TERM, the grace period, KILL). A dormant one
    /// was never needed: it ends as up to date (or, once the run stops, with the run's reason).
    func stopService(_ index: Int) {
        if states[index] == .ready {
            // Dormant, or woken but not started yet: never needed after all. Up to date, when
            // what needed it ended well (or with -k); else it ends with the run's reason for
            // stopping, as what never started does. Queued, it is skipped when it comes up.
            let usersFinished = services?.users[index]?.allSatisfy { user in
                if case .finished = states[user] { true } else { false }
            } ?? true
            guard usersFinished || configuration.keepGoing else { return }
            services?.dormant.remove(index)
            end(index, .finished(.upToDate))
            return
        }
        guard states[index] == .executing, services?.stopRequested.contains(index) == false else { return }
        services?.stopRequested.insert(index)
        runner.stopService(jobID: index)
    }

    /// Nothing runs any more that could need them: every service still up is stopped.
    func stopLiveServices() {
        guard let live = services?.live else { return }
        for index in live.sorted() { stopService(index) }
    }
}
