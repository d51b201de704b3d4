/// Runs operations on bounded queues: the run loop of Foundation's `OperationQueue` model (docs/manual/running.md).
///
/// One owner of all scheduling state, no locks: it starts what the bounds allow, then waits for the
/// runner's events. Every event costs O(1) plus O(log n) per heap step and O(1) per dependent edge;
/// nothing scans all operations except building the graph and the report, once each.
public final class OperationEngine {
    let specs: [OperationSpec]
    let configuration: EngineConfiguration
    let runner: CommandRunner
    let observer: RunObserver
    let upToDate: UpToDateChecking?
    /// The checker wants to hear of operations that became ready before they are decided.
    private let announcesReady: Bool
    let graph: DependencyGraph
    /// Each operation's expected cost, asked for once (see `init`).
    private var costs: (() -> [UInt64])?
    /// Each operation's critical path, made when the first operation is queued: a run in which
    /// every operation is up to date never needs it, nor the costs it is made of.
    private var criticalPaths: [UInt64]?

    var states: [OperationState]
    /// Prerequisites that have not yet finished well.
    var unmetPrerequisites: [Int]
    var attempts: [Int]
    var startNanoseconds: [UInt64?]
    var endNanoseconds: [UInt64?]
    var lastResults: [JobResult?]
    var ready: ReadySet
    /// Operations that just became ready, first in first out: each is checked for being up to
    /// date, then finished at once (groups, up-to-date ones) or put in the queue. A list rather
    /// than recursion, so a 100,000-long chain of up-to-date tasks cannot overflow the stack.
    var newlyReady: [Int] = []
    var nextNewlyReady = 0
    /// `newlyReady[..<announcedNewlyReady]` were told to the checker (`willDecide`).
    var announcedNewlyReady = 0
    /// Operations the checker was told will run; they report how they ended.
    var checkedToRun: [Bool]
    var executingCount = 0
    var interactiveExecuting = false
    /// Why the run stopped starting operations, the first time it did.
    var stopReason: RunStopReason?
    /// The checker saw a termination signal coming: wait for the runner to hand it over, even
    /// with nothing executing, before anything starts.
    var awaitingSignal = false
    var signal: Int32?
    var hasRun = false
    /// Services' bookkeeping; `nil` in a run without services, which then does no work for them.
    var services: ServiceTracker?

    /// `upToDate`, when given, is asked about each operation as it becomes ready (docs/manual/up-to-date.md).
    /// `costs` gives each operation's expected cost (its last recorded duration), which weighs
    /// the critical path the queue orders by (docs/manual/running.md); asked once, and only when an operation is
    /// queued. Without it every operation costs 1: the path is the number of operations behind.
    public init(
        specs: [OperationSpec], configuration: EngineConfiguration, runner: CommandRunner,
        observer: RunObserver, upToDate: UpToDateChecking? = nil, costs: (() -> [UInt64])? = nil
    ) {
        precondition(configuration.maxConcurrentOperationCount >= 1, "-j must be at least 1")
        precondition(
            specs.allSatisfy { spec in
                spec.queue.map { configuration.queueBounds.indices.contains($0) } ?? true
            },
            "an operation names a queue that has no bound")
        self.specs = specs
        self.configuration = configuration
        self.runner = runner
        self.observer = observer
        self.upToDate = upToDate
        announcesReady = upToDate?.looksAhead ?? false
        self.costs = costs
        checkedToRun = Array(repeating: false, count: specs.count)
        graph = DependencyGraph(prerequisites: specs.map { $0.prerequisites })
        states = Array(repeating: .pending, count: specs.count)
        unmetPrerequisites = graph.prerequisiteCount
        attempts = Array(repeating: 0, count: specs.count)
        startNanoseconds = Array(repeating: nil, count: specs.count)
        endNanoseconds = Array(repeating: nil, count: specs.count)
        lastResults = Array(repeating: nil, count: specs.count)
        ready = ReadySet(queueBounds: configuration.queueBounds)
        if specs.contains(where: { $0.job.service != nil }) { services = ServiceTracker(specs: specs, graph: graph) }
    }

    /// Runs every operation that the bounds, failures and signals allow, and says how each ended.
    public func run() -> RunReport {
        precondition(!hasRun, "an OperationEngine runs once")
        hasRun = true
        for index in specs.indices where unmetPrerequisites[index] == 0 { makeReady(index) }
        while true {
            startReadyOperations()
            if executingCount == 0 && !awaitingSignal {
                // Nothing runs that could still need a service: stop those still up, and wait for them.
                guard let services, services.hasLive else { break }
                stopLiveServices()
            }
            for event in runner.waitForEvents() { handle(event) }
        }
        return endRun()
    }

    var isStopped: Bool { stopReason != nil }

    func makeReady(_ index: Int) {
        states[index] = .ready
        newlyReady.append(index)
    }

    /// Takes the next newly ready operation: finishes it if it is up to date or a group (its
    /// dependents join the list), or queues it, or (a signal coming) puts it back and waits for the
    /// signal. Returns `false` when the list is empty.
    private func settleNewlyReady() -> Bool {
        guard nextNewlyReady < newlyReady.count else { return false }
        if announcesReady, nextNewlyReady >= announcedNewlyReady, let upToDate {
            // All that are ready, at once: the checker may start work for them ahead.
            upToDate.willDecide(newlyReady[nextNewlyReady...])
            announcedNewlyReady = newlyReady.count
        }
        let index = newlyReady[nextNewlyReady]
        nextNewlyReady += 1
        if nextNewlyReady == newlyReady.count {
            newlyReady.removeAll(keepingCapacity: true)
            nextNewlyReady = 0
            announcedNewlyReady = 0
        }
        if services != nil {
            if states[index] == .ready { servicePrerequisitesDone(index) }
            // Cancelled since, by a service that exited; or a service no task needs yet.
            if states[index] != .ready || becomesDormant(index) { return true }
        }
        switch upToDate?.decide(index) ?? .mustRun {
        case .upToDate:
            finish(index, .upToDate)
            return true
        case .restored(let standardOutput, let standardError):
            if !standardOutput.isEmpty { observer.handle(.output(index: index, .standardOutput, standardOutput)) }
            if !standardError.isEmpty { observer.handle(.output(index: index, .standardError, standardError)) }
            finish(index, .restored)
            return true
        case .interrupted:
            // Asked again should the run go on (it will not once the signal is taken).
            newlyReady.append(index)
            awaitingSignal = signal == nil
            return true
        case .cannotRun(let reason):
            // As a command that could not be spawned: one attempt, failed, said why.
            attempts[index] = 1
            observer.handle(.operationStarted(index: index, attempt: 1))
            lastResults[index] = JobResult(termination: .exited(127), commandIndex: 0, spawnFailure: reason)
            if specs[index].allowFailure { finish(index, .failedAllowed) } else { fail(index) }
            return true
        case .mustRun:
            break
        }
        if specs[index].isGroup {
            runGroup(index)
        } else if services == nil || !holdForServices(index) {
            enqueue(index)
        }
        return true
    }

    /// A group runs nothing: it starts and succeeds at once, its dependents made ready.
    private func runGroup(_ index: Int) {
        attempts[index] = 1
        observer.handle(.operationStarted(index: index, attempt: 1))
        willRun(index)
        finish(index, .succeeded)
    }

    /// Puts a ready operation in its queue.
    func enqueue(_ index: Int) {
        let key = ReadyKey(
            priority: specs[index].priority.rawValue, criticalPath: criticalPath(of: index), index: index)
        ready.insert(key, queue: specs[index].queue)
    }

    private func criticalPath(of index: Int) -> UInt64 {
        if let criticalPaths { return criticalPaths[index] }
        let made = graph.criticalPaths(costs: costs?() ?? Array(repeating: 1, count: specs.count))
        criticalPaths = made
        costs = nil
        return made[index]
    }

    /// Starts ready operations in order while the bounds allow; an interactive one at the head
    /// waits for the queue to drain and holds back everything behind it, so it cannot starve.
    private func startReadyOperations() {
        while !isStopped && !awaitingSignal {
            if settleNewlyReady() { continue }
            guard let next = ready.top else { break }
            if services != nil, states[next.index] != .ready {
                // Cancelled while queued, by a service that exited.
                _ = ready.popTop()
                if let queue = specs[next.index].queue { ready.release(queue: queue) }
                continue
            }
            guard executingCount < configuration.maxConcurrentOperationCount, !interactiveExecuting,
                !(specs[next.index].interactive && executingCount > 0)
            else { break }
            _ = ready.popTop()
            states[next.index] = .executing
            executingCount += 1
            if specs[next.index].interactive { interactiveExecuting = true }
            startAttempt(next.index)
        }
        if isStopped, signal == nil, !awaitingSignal { finishReadyGroups() }
    }

    /// After a failure stopped the run, a group that became ready (its prerequisites all ended
    /// well: the tasks running at the failure finished) still finishes as they did: it runs
    /// nothing, and its state follows its prerequisites' rather than reading "not run". Other
    /// operations made ready stay unstarted, and end as not run.
    private func finishReadyGroups() {
        while nextNewlyReady < newlyReady.count {
            let index = newlyReady[nextNewlyReady]
            nextNewlyReady += 1
            guard states[index] == .ready, specs[index].isGroup else { continue }
            switch upToDate?.decide(index) ?? .mustRun {
            case .upToDate:
                finish(index, .upToDate)
            case .mustRun:
                runGroup(index)
            case .restored, .cannotRun, .interrupted:
                continue
            }
        }
        newlyReady.removeAll(keepingCapacity: true)
        nextNewlyReady = 0
        announcedNewlyReady = 0
    }

    private func startAttempt(_ index: Int) {
        if attempts[index] == 0 { willRun(index) }
        attempts[index] += 1
        observer.handle(.operationStarted(index: index, attempt: attempts[index]))
        var job = specs[index].job
        job.id = index
        job.interactive = specs[index].interactive
        runner.start(job)
    }

    private func handle(_ event: RunnerEvent) {
        switch event {
        case .commandStarted(let index, let commandIndex):
            observer.handle(.commandStarted(index: index, commandIndex: commandIndex))
        case .output(let index, let stream, let bytes):
            observer.handle(.output(index: index, stream, bytes))
        case .finished(let index, let result):
            if specs[index].isService { serviceFinished(index, result) } else { jobFinished(index, result) }
        case .ready(let index, let nanoseconds):
            serviceBecameReady(index, at: nanoseconds)
        case .signal(let number):
            interrupt(number)
        case .suspendRequested:
            suspend()
        }
    }

    /// Ctrl-Z, as a suspended `OperationQueue`: nothing new starts (the runner returns only once
    /// opsrun is continued), every running task is stopped where it is, then opsrun; `fg` or `bg`
    /// continues them all.
    private func suspend() {
        observer.handle(.runSuspending)
        runner.suspend()
        observer.handle(.runContinued)
    }

    /// An attempt ended: success, a retry, an allowed failure, a failure, or (after a signal) an
    /// interrupted operation. A job that succeeded despite the signal keeps its success.
    private func jobFinished(_ index: Int, _ result: JobResult) {
        precondition(
            states[index] == .executing, "the runner finished job \(index), which is not executing")
        record(index, result)
        if let services, let service = services.failedBecauseOf[index] {
            // Terminated because the service it needed exited: that is its failure, not retried.
            var failed = result
            let exit = lastResults[service]?.termination ?? .exited(255)
            failed.serviceFailure = .serviceExited(name: specs[service].name, exit)
            lastResults[index] = failed
            releaseSlot(index)
            fail(index)
        } else if result.succeeded {
            releaseSlot(index)
            finish(index, .succeeded)
        } else if let signal {
            releaseSlot(index)
            end(index, .cancelled(.interrupted(signal: signal)))
        } else if attempts[index] <= specs[index].retries {
            // The retry keeps the operation's slot: it never leaves the executing state.
            observer.handle(
                .retrying(index: index, nextAttempt: attempts[index] + 1, previous: result))
            startAttempt(index)
        } else if specs[index].allowFailure {
            releaseSlot(index)
            finish(index, .failedAllowed)
        } else {
            releaseSlot(index)
            fail(index)
        }
    }

    func record(_ index: Int, _ result: JobResult) {
        lastResults[index] = result
        if startNanoseconds[index] == nil { startNanoseconds[index] = result.startNanoseconds }
        endNanoseconds[index] = result.endNanoseconds
    }

    /// A failure that is not allowed: its dependents are cancelled, and unless `-k` nothing more starts.
    func fail(_ index: Int) {
        finish(index, .failed)
        cancelDependents(of: index)
        stopAfterFailure(of: index)
    }

    /// Unless `-k`, nothing more starts after the first failure.
    func stopAfterFailure(of index: Int) {
        if !configuration.keepGoing && stopReason == nil {
            stopReason = .failure(index: index)
            observer.handle(.runStopping(.failure(index: index)))
        }
    }

    func releaseSlot(_ index: Int) {
        executingCount -= 1
        if specs[index].interactive { interactiveExecuting = false }
        if let queue = specs[index].queue { ready.release(queue: queue) }
    }

    private func willRun(_ index: Int) {
        guard let upToDate else { return }
        checkedToRun[index] = true
        upToDate.willRun(index)
    }

    /// Ends the operation with an outcome; a good one counts down its dependents' prerequisites.
    func finish(_ index: Int, _ outcome: OperationOutcome) {
        end(index, .finished(outcome))
        guard outcome.unblocksDependents else { return }
        for dependent in graph.dependents(of: index) {
            unmetPrerequisites[dependent] -= 1
            if unmetPrerequisites[dependent] == 0 && states[dependent] == .pending {
                makeReady(dependent)
            }
        }
    }

    /// Cancels every transitive dependent of a failed operation, breadth first, so each one's cause
    /// names its nearest path to the failure.
    private func cancelDependents(of failed: Int) {
        var queue = [failed]
        var head = 0
        while head < queue.count {
            let parent = queue[head]
            head += 1
            for dependent in graph.dependents(of: parent) where states[dependent] == .pending {
                let cause: CancellationCause =
                    parent == failed
                    ? .prerequisiteFailed(prerequisite: failed)
                    : .prerequisiteCancelled(prerequisite: parent, root: failed)
                end(dependent, .cancelled(cause))
                queue.append(dependent)
            }
        }
    }

    /// The first signal stops the run and asks the runner to terminate (TERM, then KILL after the
    /// grace period); any later one kills at once.
    private func interrupt(_ number: Int32) {
        guard signal == nil else { return runner.terminateAll(immediately: true) }
        signal = number
        awaitingSignal = false
        upToDate?.runInterrupted()
        if stopReason == nil { stopReason = .signal(number) }
        observer.handle(.runStopping(.signal(number)))
        runner.terminateAll(immediately: false)
    }

    func end(_ index: Int, _ state: OperationState) {
        states[index] = state
        if checkedToRun[index], let upToDate {
            upToDate.didEnd(index, succeeded: state == .finished(.succeeded))
            if signal == nil, upToDate.gaveWayToSignal { awaitingSignal = true }
        }
        switch state {
        case .finished(let outcome):
            observer.handle(.finished(index: index, outcome, result: lastResults[index]))
        case .cancelled(let cause):
            observer.handle(.cancelled(index: index, cause))
        case .pending, .ready, .executing:
            preconditionFailure("not an end state")
        }
        if services != nil { serviceUserEnded(index) }
    }

    /// Operations that never started end with the reason the run stopped first, then the report.
    private func endRun() -> RunReport {
        for index in specs.indices where !states[index].isEnded {
            switch stopReason {
            case .failure(let failed)?: end(index, .cancelled(.runStopped(after: failed)))
            case .signal(let number)?: end(index, .cancelled(.interrupted(signal: number)))
            case nil: preconditionFailure("operation \(index) never became ready")
            }
        }
        if services != nil { discardStaleServicesNotStarted() }
        // Read once here rather than once per operation: each read of a stored property of a
        // class is an exclusivity check at run time (a 10,000-task no-op made 50,000 of them here).
        let (specs, states, attempts) = (specs, states, attempts)
        let (startNanoseconds, endNanoseconds, lastResults) = (startNanoseconds, endNanoseconds, lastResults)
        let records = specs.indices.map { index in
            OperationRecord(
                name: specs[index].name, state: states[index], attempts: attempts[index],
                startNanoseconds: startNanoseconds[index], endNanoseconds: endNanoseconds[index],
                lastResult: lastResults[index], readyNanoseconds: services?.readyAt[index])
        }
        var stoppedAfterFailure: Int?
        if case .failure(let failed)? = stopReason { stoppedAfterFailure = failed }
        return RunReport(
            operations: records, signal: signal, stoppedAfterFailure: stoppedAfterFailure)
    }
}
