import Foundation
import OpsrunKit
import Testing
@testable import OpsrunEngine
@testable import OpsrunProcess

#if canImport(Glibc)
    import Glibc
#endif

/// `--watch` (docs/manual/watch.md): a runner that keeps services reports a stopped service finished at once
/// while its process runs on, and hands that process to the next start of the same service.
@Suite struct KeptServiceTests {
    func serviceJob(_ id: Int, directory: String, seconds: Int = 60) -> CommandJob {
        var job = makeJob(id, ["echo $$ >> pids; exec sleep \(seconds)"], directory: directory)
        job.taskName = "db"
        job.service = ServiceReadiness(probe: nil)
        return job
    }

    /// The pids written so far, once at least one is (within 10 s).
    func waitForPid(in directory: String) -> Int32? {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let pid = pids(in: directory).first { return pid }
            usleep(10_000)
        }
        return nil
    }

    func pids(in directory: String) -> [Int32] {
        ((try? String(contentsOfFile: directory + "/pids", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
    }

    @Test func aStoppedServiceIsKeptAndTheSameDefinitionTakesItOverReadyAtOnce() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let driver = RunnerDriver(graceMilliseconds: 2000)
        driver.runner.keepsServices = true
        defer { driver.runner.shutdown() }

        driver.start(serviceJob(0, directory: directory))
        driver.run { $0.logs[0]?.readyCount == 1 }
        driver.runner.stopService(jobID: 0)
        driver.run()
        #expect(driver.logs[0]?.result?.keptRunning == true)
        #expect(driver.runner.hasKeptServices)
        let pid = try #require(waitForPid(in: directory))
        #expect(kill(pid, 0) == 0)

        // The next run's operation 7 is the same service: ready at once, nothing spawned.
        driver.start(serviceJob(7, directory: directory))
        driver.run { $0.logs[7]?.readyCount == 1 }
        #expect(driver.logs[7]?.commandsStarted == [])
        #expect(!driver.runner.hasKeptServices)
        #expect(pids(in: directory) == [pid])

        // Kept again, then stopped for a changed definition: gone before the call returns.
        driver.runner.stopService(jobID: 7)
        driver.run()
        driver.runner.stopKeptServices(keeping: [serviceJob(7, directory: directory, seconds: 61)])
        #expect(!driver.runner.hasKeptServices)
        // Reaped by the runner already: the pid names nothing.
        #expect(kill(pid, 0) != 0)
    }

    /// Issue 29: a prerequisite of the service ran again, so the kept process is stale: it is
    /// stopped, and the next start of the same definition waits for its end, then spawns anew.
    @Test func aStaleKeptServiceIsStoppedAndTheNextStartSpawnsItAfresh() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let driver = RunnerDriver(graceMilliseconds: 2000)
        driver.runner.keepsServices = true
        defer { driver.runner.shutdown() }

        driver.start(serviceJob(0, directory: directory))
        driver.run { $0.logs[0]?.readyCount == 1 }
        driver.runner.stopService(jobID: 0)
        driver.run()
        let pid = try #require(waitForPid(in: directory))

        driver.runner.discardKeptService(like: serviceJob(7, directory: directory))
        driver.start(serviceJob(7, directory: directory))
        // The old process is gone (reaped) before the new one was spawned.
        #expect(kill(pid, 0) != 0)
        driver.run { $0.logs[7]?.readyCount == 1 }
        #expect(driver.logs[7]?.commandsStarted == [0])
        #expect(!driver.runner.hasKeptServices)
        // Ready once spawned (no probe): its shell writes its pid a moment later.
        let deadline = Date().addingTimeInterval(10)
        while pids(in: directory).count < 2 && Date() < deadline { usleep(10_000) }
        #expect(pids(in: directory).count == 2)
        #expect(pids(in: directory).first == pid)
        driver.runner.terminate(jobID: 7)
        driver.run()
    }

    @Test func aRunnerThatDoesNotKeepServicesStopsThem() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let driver = RunnerDriver(graceMilliseconds: 2000)
        defer { driver.runner.shutdown() }
        driver.start(serviceJob(0, directory: directory))
        driver.run { $0.logs[0]?.readyCount == 1 }
        driver.runner.stopService(jobID: 0)
        driver.run()
        #expect(driver.logs[0]?.result?.keptRunning == false)
        #expect(driver.logs[0]?.result?.termination == .signaled(SIGTERM))
        #expect(!driver.runner.hasKeptServices)
    }
}
