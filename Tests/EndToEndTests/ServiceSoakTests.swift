import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 16's soak: 100 runs, each interrupted by SIGINT at a random moment (before, while and
/// after its service comes up, during a cleanup) must each exit 130 and leave no process behind.
/// Slow (about a minute), so opt-in: `OPSRUN_SOAK=1 swift test --filter ServiceSoakTests`.
@Suite struct ServiceSoakTests {
    static let enabled = ProcessInfo.processInfo.environment["OPSRUN_SOAK"] == "1"

    @Test(.enabled(if: ServiceSoakTests.enabled))
    func interruptedRunsWithAServiceUpLeaveNothingBehind() throws {
        let project = try TemporaryProject(
            """
            tasks:
            \(ServiceTests.server)
                cleanup: sleep 0.2
              test:
                deps: [server]
                run: python3 client.py; exec sleep 60
                cleanup: [sleep 0.1, echo cleaned]
              unrelated:
                run: exec sleep 60
              all:
                deps: [test, unrelated]
            """, files: ServiceTests.scripts)
        var random = SeededRandom()
        print("ServiceSoakTests: \(SeededRandom.replay)")
        for round in 1...100 {
            for file in ["server.pid", "port"] { try? FileManager.default.removeItem(atPath: project.path(file)) }
            let running = try project.start("-j", "2", "--grace", "2s", "all")
            // Once opsrun has taken over its signals (before that, SIGINT would kill it as any
            // program), anywhere from before the port is picked to well after the server is up.
            try #require(waitUntil("opsrun to block SIGINT") {
                (ProcessProbe.blockedSignals(of: running.pid) ?? 0) & (1 << (UInt64(SIGINT) - 1)) != 0
            })
            usleep(UInt32.random(in: 0...1_500_000, using: &random))
            kill(running.pid, SIGINT)
            let result = running.wait(seconds: 30)
            #expect(result.status == 130, "round \(round), \(SeededRandom.replay)\n\(result.stdout)\(result.stderr)")
            let left = LeftoverProcesses.inDirectory(project.url.path)
            #expect(left.isEmpty, "round \(round): left \(left), \(SeededRandom.replay)\n\(result.stdout)")
            if let text = try? String(contentsOfFile: project.path("port"), encoding: .utf8),
                let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                #expect(!LoopbackPort.isListening(port), "round \(round): port \(port) still listening, \(SeededRandom.replay)")
            }
        }
    }
}

/// Processes whose working directory is a given directory: what a run left behind there.
enum LeftoverProcesses {
    static func inDirectory(_ directory: String) -> [Int32] {
        let resolved = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap(Int32.init).filter { pid in
            guard let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd") else {
                return false
            }
            return cwd == directory || cwd == resolved
        }
    }
}
