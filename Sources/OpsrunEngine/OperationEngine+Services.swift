/// Services (SPEC §11): an operation that becomes ready for its dependents while its process
/// runs on, holds no slot once ready, and is stopped when the last task that needs it has ended.
extension OperationEngine {
    /// The probe succeeded (or the service started, without one): its slot goes back to the
    /// queue and its dependents count it as done.
    func serviceBecameReady(_ index: Int, at nanoseconds: UInt64) {
        guard var tracker = services, states[index] == .executing, tracker.readyAt[index] == nil,
            !tracker.stopRequested.contains(index)
        else { return }
        tracker.readyAt[index] = nanoseconds
        tracker.live.insert(index)
        services = tracker
        releaseSlot(index)
        observer.handle(.serviceReady(index: index, nanoseconds: nanoseconds))
        for dependent in graph.dependents(of: index) {
            unmetPrerequisites[dependent] -= 1
            if unmetPrerequisites[dependent] == 0 && states[dependent] == .pending {
                makeReady(dependent)
            }
        }
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

    /// Asks the runner to stop a running service (TERM, the grace period, KILL).
    func stopService(_ index: Int) {
        guard states[index] == .executing, services?.stopRequested.contains(index) == false else { return }
        services?.stopRequested.insert(index)
        runner.terminate(jobID: index)
    }

    /// Nothing runs any more that could need them: every service still up is stopped.
    func stopLiveServices() {
        guard let live = services?.live else { return }
        for index in live.sorted() { stopService(index) }
    }
}
