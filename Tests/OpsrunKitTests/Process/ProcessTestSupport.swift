import Foundation
import OpsrunKit
import Testing
@testable import OpsrunEngine
@testable import OpsrunProcess

/// What one job reported, gathered from a runner's events.
struct JobLog {
    var commandsStarted: [Int] = []
    var standardOutput: [UInt8] = []
    var standardError: [UInt8] = []
    var result: JobResult?
    /// `.ready` events of a service job.
    var readyCount = 0
    /// Events for the job that came after its `.finished` (there must be none).
    var eventsAfterFinish = 0

    var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
    var errorText: String { String(decoding: standardError, as: UTF8.self) }
}

/// Drives a runner from the test's thread, as the engine's run loop does.
///
/// Every wait has a deadline: when what a test waits for has not happened within it (a bug that
/// would otherwise hang the whole suite), the driver records an issue at the test's line, kills
/// every process the runner still knows (`shutdown`), and from then on starts and waits for
/// nothing, so the test fails and ends.
final class RunnerDriver {
    let runner: ProcessRunner
    var logs: [Int: JobLog] = [:]
    var signals: [Int32] = []
    /// Ctrl-Z (SIGTSTP, or the interactive task stopped) reported by the runner.
    var suspensionsRequested = 0
    /// Called with every event, before the driver records it.
    var observe: ((RunnerEvent) -> Void)?
    /// Whether `JobLog` keeps the output (a test counting 40 MB need not).
    var keepsOutput = true
    /// Set once a deadline has passed.
    private(set) var expired = false

    /// The deadline of each wait, unless a test gives one: generous, for a loaded machine.
    static let defaultDeadlineSeconds = 60.0

    init(graceMilliseconds: Int = 5000, host: ProcessHost = .embedded) {
        runner = ProcessRunner(graceMilliseconds: graceMilliseconds, host: host)
    }

    func start(_ job: CommandJob) {
        logs[job.id] = JobLog()
        guard !expired else { return }
        runner.start(job)
    }

    /// Waits for events until `done` holds (by default: every started job finished), at most
    /// `seconds`; returns whether it holds.
    @discardableResult
    func run(
        within seconds: Double = RunnerDriver.defaultDeadlineSeconds,
        sourceLocation: SourceLocation = #_sourceLocation,
        until done: ((RunnerDriver) -> Bool)? = nil
    ) -> Bool {
        let isDone = done ?? { driver in driver.logs.values.allSatisfy { $0.result != nil } }
        guard !expired else { return isDone(self) }
        let watchdog = RunLoopWatchdog(seconds: seconds)
        defer { watchdog.disarm() }
        while !isDone(self) {
            let events = runner.waitForEvents()
            if watchdog.hasFired {
                expire(after: seconds, sourceLocation: sourceLocation)
                return isDone(self)
            }
            for event in events {
                record(event)
            }
        }
        return true
    }

    /// Starts one job and runs until it finishes (or the deadline passes: no result then).
    func runJob(
        _ job: CommandJob, within seconds: Double = RunnerDriver.defaultDeadlineSeconds,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> JobLog {
        start(job)
        run(within: seconds, sourceLocation: sourceLocation)
        return logs[job.id]!
    }

    private func expire(after seconds: Double, sourceLocation: SourceLocation) {
        expired = true
        let waiting = logs.filter { $0.value.result == nil }.keys.sorted()
        Issue.record(
            "RunnerDriver: still waiting after \(seconds) s (jobs without a result: \(waiting)); every process killed",
            sourceLocation: sourceLocation)
        runner.shutdown()
    }

    private func record(_ event: RunnerEvent) {
        observe?(event)
        switch event {
        case .commandStarted(let id, let index):
            update(id) { $0.commandsStarted.append(index) }
        case .output(let id, .standardOutput, let bytes):
            update(id) { if keepsOutput { $0.standardOutput += bytes } }
        case .output(let id, .standardError, let bytes):
            update(id) { if keepsOutput { $0.standardError += bytes } }
        case .finished(let id, let result):
            update(id) { $0.result = result }
        case .signal(let signal):
            signals.append(signal)
        case .ready(let id, _):
            update(id) { $0.readyCount += 1 }
        case .suspendRequested:
            suspensionsRequested += 1
        }
    }

    private func update(_ id: Int, _ change: (inout JobLog) -> Void) {
        var log = logs[id]!
        if log.result != nil { log.eventsAfterFinish += 1 }
        change(&log)
        logs[id] = log
    }
}

/// Wakes the thread blocked in `ProcessRunner.waitForEvents` once a deadline has passed.
///
/// That thread blocks SIGQUIT while it waits, so a SIGQUIT sent to it alone (`pthread_kill`) stays
/// pending on it, where the runner's signalfd, which listens for SIGQUIT, finds it: the wait
/// returns a `.signal` event. The rest of the test process never sees the signal; one still
/// pending when the wait ends is taken before the thread's mask is restored.
private final class RunLoopWatchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var armed = true
    private var fired = false
    private let thread = pthread_self()
    private var previousMask = sigset_t()

    private static var quit: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGQUIT)
        return signals
    }

    init(seconds: Double) {
        var signals = Self.quit
        pthread_sigmask(SIG_BLOCK, &signals, &previousMask)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            lock.withLock {
                guard armed else { return }
                fired = true
                pthread_kill(thread, SIGQUIT)
            }
        }
    }

    var hasFired: Bool { lock.withLock { fired } }

    /// On the thread that armed it, once its wait is over.
    func disarm() {
        let wasFired = lock.withLock {
            armed = false
            return fired
        }
        if wasFired {
            var signals = Self.quit
            var noWait = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&signals, nil, &noWait)
        }
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
    }
}

/// A job with a minimal environment, in the system's temporary directory.
func makeJob(
    _ id: Int, _ commands: [String], directory: String = "/tmp",
    environment: [String] = ["PATH=/usr/bin:/bin"], timeoutMilliseconds: Int? = nil,
    qualityOfService: OpsrunEngine.QualityOfService = .default, interactive: Bool = false
) -> CommandJob {
    CommandJob(
        id: id, taskName: "task\(id)", commands: commands, workingDirectory: directory,
        environment: JobEnvironment(environment), timeoutMilliseconds: timeoutMilliseconds,
        qualityOfService: qualityOfService, interactive: interactive)
}

/// Job 1 (see `makeJob(_:_:...)`).
func makeJob(
    _ commands: [String], directory: String = "/tmp",
    environment: [String] = ["PATH=/usr/bin:/bin"], timeoutMilliseconds: Int? = nil,
    qualityOfService: OpsrunEngine.QualityOfService = .default, interactive: Bool = false
) -> CommandJob {
    makeJob(
        1, commands, directory: directory, environment: environment,
        timeoutMilliseconds: timeoutMilliseconds, qualityOfService: qualityOfService,
        interactive: interactive)
}

/// A fresh directory under /tmp, its path resolved (no symlinks), removed by the caller.
func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/opsrun-process-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
}

func removeDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// The pid a command wrote to a file.
func readPid(_ path: String) -> pid_t? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
}

/// Whether the process exists and is not a zombie (an orphaned zombie may never be reaped in a
/// container whose init does not reap, and it is dead all the same).
func isRunning(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return false }
    let state = stat[stat.index(close, offsetBy: 2)]
    return state != "Z" && state != "X"
}

/// Waits (up to `seconds`) for a process that was sent SIGTERM or SIGKILL to be gone; the signal
/// is delivered asynchronously. Returns whether it is gone.
func waitUntilGone(_ pid: pid_t, within seconds: Double = 30) -> Bool {
    waitUntil(within: seconds) { !isRunning(pid) }
}

/// Polls `condition` every 10 ms until it holds or `seconds` have passed; returns whether it holds.
func waitUntil(within seconds: Double = RunnerDriver.defaultDeadlineSeconds, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicDeadline(seconds: seconds)
    while !condition() {
        guard !deadline.hasPassed else { return false }
        usleep(10_000)
    }
    return true
}

/// A point `seconds` from now on the monotonic clock (a wall-clock step does not move it).
struct MonotonicDeadline {
    private let end: UInt64

    init(seconds: Double) {
        end = Self.now() + UInt64(seconds * 1e9)
    }

    var hasPassed: Bool { Self.now() >= end }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
