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
            end(index, .finished(.failed))
            failUsers(of: index)
            stopAfterFailure(of: index)
        }
    }

    /// A service exited while needed: its running users are terminated (and fail with
    /// `service 'db' exited`), those not started are cancelled with it as the cause.
    private func failUsers(of service: Int) {
        guard let users = services?.users[service] else { return }
        for user in users {
            switch states[user] {
            case .executing:
                services?.failedBecauseOf[user] = service
                runner.terminate(jobID: user)
            case .pending, .ready:
                // Users come nearest first, so a prerequisite cancelled here is already so. One
                // that waits on a running user is left to that user's failure, which names it.
                let prerequisites = specs[user].prerequisites
                if prerequisites.contains(service) {
                    end(user, .cancelled(.prerequisiteFailed(prerequisite: service)))
                } else if let through = prerequisites.first(where: { Self.isCancelled(states[$0]) }) {
                    end(user, .cancelled(.prerequisiteCancelled(prerequisite: through, root: service)))
                }
            case .finished, .cancelled:
                break
            }
        }
    }

    private static func isCancelled(_ state: OperationState) -> Bool {
        if case .cancelled = state { true } else { false }
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
