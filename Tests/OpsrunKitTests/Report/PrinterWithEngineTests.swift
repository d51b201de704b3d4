import Testing

@testable import OpsrunKit
@testable import OpsrunEngine
@testable import OpsrunReport

/// The printers observing the real engine, with the scripted runner of the engine tests.
@Suite struct PrinterWithEngineTests {
    func run(
        _ operations: [TestOperation], runner: FakeRunner,
        options: RunPrinter.Options = RunPrinter.Options(),
        jobs: Int = 1
    ) -> (transcript: Transcript, summary: String) {
        let specs = makeSpecs(operations)
        let transcript = Transcript()
        let printer = RunPrinter(
            specs: specs, options: options,
            sinks: (
                TranscriptSink(transcript: transcript, stream: .standardOutput),
                TranscriptSink(transcript: transcript, stream: .standardError)
            ))
        let engine = OperationEngine(
            specs: specs, configuration: EngineConfiguration(maxConcurrentOperationCount: jobs),
            runner: runner, observer: printer)
        let report = engine.run()
        printer.finish()
        return (
            transcript,
            SummaryPrinter.render(report, specs: specs, style: TerminalStyle(enabled: false))
        )
    }

    @Test func aFailedRunPrintsItsLinesAndTheSpecSummary() {
        let runner = FakeRunner()
        runner.terminations = ["compile": [.exited(2)]]
        runner.outputs = ["compile": Array("main.c:3: error".utf8), "fetch": Array("ok\n".utf8)]
        let (transcript, summary) = run(
            [
                op("fetch"), op("compile", ["fetch"]), op("link", ["compile"]),
                op("package", ["link"]),
                op("docs", priority: .low), op("build", ["package", "docs"], group: true),
            ],
            runner: runner)
        #expect(
            transcript.combined == """
                ▶ fetch
                fetch   | ok
                ✓ fetch 0.0s
                ▶ compile
                compile | main.c:3: error
                ✗ compile exit 2 after 0.0s

                """)
        #expect(
            summary == """
                1 succeeded, 1 failed, 2 cancelled, 1 not run
                FAILED   compile   exit 2 after 0.0s
                  cancelled  link      prerequisite 'compile' failed
                  cancelled  package   prerequisite 'link' was cancelled (compile)
                  cancelled  build     prerequisite 'package' was cancelled (compile)
                NOT RUN  docs      the run stopped after 'compile' failed (use -k to keep going)

                """)
    }

    @Test func anInterruptPrintsTheTasksItCutShort() {
        let runner = FakeRunner()
        runner.durations = ["a": 10, "b": 10]
        runner.signals = [(tick: 3, signal: 2)]
        runner.outputs = ["a": Array("working".utf8)]
        let (transcript, summary) = run(
            [op("a"), op("b"), op("c", ["a"])], runner: runner, jobs: 2)
        // The unfinished line "working" is printed when its task ends.
        #expect(
            transcript.combined == """
                ▶ a
                ▶ b
                ■ interrupted by SIGINT: stopping running tasks
                a | working
                ■ a interrupted by SIGINT
                ■ b interrupted by SIGINT

                """)
        #expect(
            summary == """
                0 succeeded, 2 interrupted, 1 cancelled
                INTERRUPTED by SIGINT
                  interrupted  a         interrupted by SIGINT
                  interrupted  b         interrupted by SIGINT
                  1 task had not started

                """)
    }
}
