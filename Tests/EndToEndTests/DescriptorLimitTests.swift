import Foundation
import Testing

/// `-j` larger than the descriptor limit allows: tasks that cannot get their pipes wait for
/// running ones to end, rather than fail.
@Suite struct DescriptorLimitTests {
    @Test func tasksBeyondTheDescriptorLimitWaitTheirTurnAndAllSucceed() throws {
        let count = 40
        let tasks = (1...count).map { "  t\($0): echo out-\($0)" }.joined(separator: "\n")
        let names = (1...count).map { "t\($0)" }.joined(separator: ", ")
        let project = try TemporaryProject("""
            default: all
            tasks:
            \(tasks)
              all: { deps: [\(names)] }
            """)
        // Four descriptors a running task (two pipes) and the 40 all start at once: well past 64.
        let running = try OpsrunBinary.start(
            ["-j", "\(count)"], in: project.url,
            launcher: ["/bin/sh", "-c", "ulimit -n 64 && exec \"$0\" \"$@\""])
        let result = running.wait()
        #expect(result.status == 0, "\(result.stdout)")
        let output = squeezed(result.stdout)
        for index in 1...count {
            #expect(output.contains("t\(index) | out-\(index)\n"))
        }
        #expect(result.stdout.hasSuffix("\(count) succeeded\n"), "\(result.stdout)")
    }
}
