import Foundation
import OpsrunKit
import Testing
@testable import OpsrunEngine

@Suite struct ProcessQualityOfServiceTests {
    /// The nice value a process of a task gets: the class's, never below this process's own.
    private func expectedNiceness(_ qualityOfService: OpsrunEngine.QualityOfService) -> Int {
        max(Int(qualityOfService.niceness), Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)))
    }

    // The reading comes from a grandchild (the outer shell's child's child), which inherits it.
    private let grandchildNiceness = "sh -c 'cut -d\" \" -f19 /proc/self/stat; true'"

    @Test func utilityTaskProcessesRunAtNiceFive() {
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob([grandchildNiceness], qualityOfService: .utility))
        #expect(log.outputText == "\(expectedNiceness(.utility))\n")
    }

    @Test func backgroundTaskProcessesRunAtNiceTenWithIdleInputOutput() {
        let driver = RunnerDriver()
        let log = driver.runJob(
            makeJob([grandchildNiceness + "; ionice"], qualityOfService: .background))
        #expect(log.outputText == "\(expectedNiceness(.background))\nidle\n")
    }

    @Test func defaultTaskProcessesKeepNormalPriority() {
        let driver = RunnerDriver()
        driver.start(makeJob(1, [grandchildNiceness], qualityOfService: .utility))
        driver.start(makeJob(2, [grandchildNiceness], qualityOfService: .default))
        driver.start(makeJob(3, [grandchildNiceness], qualityOfService: .userInteractive))
        driver.run()
        let own = expectedNiceness(.default)
        #expect(driver.logs[1]?.outputText == "\(expectedNiceness(.utility))\n")
        #expect(driver.logs[2]?.outputText == "\(own)\n")
        #expect(driver.logs[3]?.outputText == "\(own)\n")
        // The run loop's thread itself was not lowered.
        #expect(Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)) == own)
    }

    @Test func interactiveCommandReportsNoOutputEvents() {
        let driver = RunnerDriver()
        let log = driver.runJob(makeJob(["exit 4"], interactive: true))
        #expect(log.result?.termination == .exited(4))
        #expect(log.commandsStarted == [0])
        #expect(log.standardOutput.isEmpty && log.standardError.isEmpty)
    }
}
