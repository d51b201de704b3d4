import Foundation
import OpsrunKit
@testable import OpsrunEngine
@testable import OpsrunProcess

/// What one job reported, gathered from a runner's events.
struct JobLog {
    var commandsStarted: [Int] = []
    var standardOutput: [UInt8] = []
    var standardError: [UInt8] = []
    var result: JobResult?
    /// Events for the job that came after its `.finished` (there must be none).
    var eventsAfterFinish = 0

    var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
    var errorText: String { String(decoding: standardError, as: UTF8.self) }
}

/// Drives a runner from the test's thread, as the engine's run loop does.
final class RunnerDriver {
    let runner: ProcessRunner
    var logs: [Int: JobLog] = [:]
    var signals: [Int32] = []

    init(graceMilliseconds: Int = 5000) {
        runner = ProcessRunner(graceMilliseconds: graceMilliseconds)
    }

    func start(_ job: CommandJob) {
        logs[job.id] = JobLog()
        runner.start(job)
    }

    /// Waits for events until `done` holds (by default: every started job finished).
    func run(until done: ((RunnerDriver) -> Bool)? = nil) {
        let isDone = done ?? { driver in driver.logs.values.allSatisfy { $0.result != nil } }
        while !isDone(self) {
            for event in runner.waitForEvents() {
                record(event)
            }
        }
    }

    /// Starts one job and runs until it finishes.
    func runJob(_ job: CommandJob) -> JobLog {
        start(job)
        run()
        return logs[job.id]!
    }

    private func record(_ event: RunnerEvent) {
        switch event {
        case .commandStarted(let id, let index):
            update(id) { $0.commandsStarted.append(index) }
        case .output(let id, .standardOutput, let bytes):
            update(id) { $0.standardOutput += bytes }
        case .output(let id, .standardError, let bytes):
            update(id) { $0.standardError += bytes }
        case .finished(let id, let result):
            update(id) { $0.result = result }
        case .signal(let signal):
            signals.append(signal)
        }
    }

    private func update(_ id: Int, _ change: (inout JobLog) -> Void) {
        var log = logs[id]!
        if log.result != nil { log.eventsAfterFinish += 1 }
        change(&log)
        logs[id] = log
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

/// Waits (up to 10 s) for a process that was sent SIGTERM or SIGKILL to be gone; the signal
/// is delivered asynchronously. Returns whether it is gone.
func waitUntilGone(_ pid: pid_t) -> Bool {
    for _ in 0..<1000 {
        if !isRunning(pid) { return true }
        usleep(10_000)
    }
    return false
}
