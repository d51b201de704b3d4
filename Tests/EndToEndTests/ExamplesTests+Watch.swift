import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 29: under `--watch`, `Examples/ci`'s `port` task picks a new port each run, and the
/// server kept up from the first run stayed on the old one, so every run after the first failed
/// (`Connection refused`). A kept service is started afresh when a prerequisite ran again
/// (docs/manual/watch.md).
extension ExamplesTests {
    @Test func ciPassesThreeRunsInARowUnderWatchWithAPageEditedBetweenThem() throws {
        let copy = try copy("ci")
        defer { remove(copy) }
        let running = try OpsrunBinary.start(["-w"], in: copy)
        defer { running.stopIfRunning() }
        let page = copy.appendingPathComponent("site/index.html")
        let original = try String(contentsOf: page, encoding: .utf8)
        var ports: [Int] = []
        for run in 1...3 {
            if run > 1 {
                // A page edited: lint and site run again, port picks a new port, and the server
                // kept from the last run must serve on it.
                try original.replacingOccurrences(of: "</body>", with: "<p>edit \(run)</p></body>")
                    .write(to: page, atomically: true, encoding: .utf8)
            }
            // The run's own end: its summary, then `watching for changes`.
            let watched = waitUntil("run \(run) to end") {
                running.errorSoFar.components(separatedBy: "watching for changes").count - 1 >= run
            }
            try #require(watched, "\(running.outputSoFar)\(running.errorSoFar)")
            // Each run's counts line.
            let summaries = running.outputSoFar.components(separatedBy: "\n").filter { $0.first?.isNumber == true }
            #expect(summaries == Array(repeating: "4 succeeded, 1 service kept running", count: run), "\(running.outputSoFar)")
            let port = try #require(Int(String(contentsOf: copy.appendingPathComponent("build/port"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            // The server serves the new port; the one it was started on before is closed.
            #expect(LoopbackPort.isListening(port))
            if let last = ports.last { #expect(last != port && !LoopbackPort.isListening(last)) }
            ports.append(port)
        }
        let served = try String(contentsOf: copy.appendingPathComponent("build/site/index.html"), encoding: .utf8)
        #expect(served.contains("<p>edit 3</p>"))
        #expect(running.outputSoFar.components(separatedBy: "integration | ok about.html\n").count - 1 == 3)

        kill(running.pid, SIGINT)
        #expect(running.wait().status == 130)
        #expect(!LoopbackPort.isListening(ports.last ?? 0))
    }
}
