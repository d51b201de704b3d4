import Foundation
import Testing

/// Every example runs as its README line says, from a copy so the repository stays clean.
@Suite struct ExamplesTests {
    /// A fresh copy of the example, without what earlier runs left in it (outputs, `.opsrun/`).
    func copy(_ name: String) throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-example-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: OpsrunBinary.examples.appendingPathComponent(name), to: copy)
        for leftover in ["build", ".opsrun"] {
            try? FileManager.default.removeItem(at: copy.appendingPathComponent(leftover))
        }
        return copy
    }

    @Test(arguments: [("hello", Int32(0)), ("diamond", 0), ("pipeline", 0), ("failing", 1), ("cycle", 2), ("c-program", 0), ("ci", 0)])
    func exampleRunsWithItsExpectedStatus(name: String, status: Int32) throws {
        let copy = try copy(name)
        defer { try? FileManager.default.removeItem(at: copy) }
        let plan = try OpsrunBinary.run(["-n"], in: copy)
        #expect(plan.status == (status == 2 ? 2 : 0))
        let run = try OpsrunBinary.run([], in: copy)
        #expect(run.status == status, "\(run.stdout)\(run.stderr)")
    }

    /// Issue 16: a CI pipeline with a service on a free loopback port, an integration step that
    /// queries it, a cleanup that collects a log, and a JUnit report; nothing is left listening.
    @Test func ciServesTheSiteForTheIntegrationTestsThenStopsTheServer() throws {
        let copy = try copy("ci")
        defer { try? FileManager.default.removeItem(at: copy) }
        let run = try OpsrunBinary.run(["-j", "2", "--junit", "junit.xml"], in: copy)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("integration | ok about.html"))
        #expect(run.stdout.contains("integration | logs collected in build/logs"))
        #expect(run.stdout.contains("5 succeeded, 1 service stopped"))
        let log = try String(contentsOf: copy.appendingPathComponent("build/logs/integration.log"), encoding: .utf8)
        #expect(log == "ok index.html\nok about.html\n")
        let junit = try String(contentsOf: copy.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.contains("tests=\"6\" failures=\"0\""))
        let port = try String(contentsOf: copy.appendingPathComponent("build/port"), encoding: .utf8)
        #expect(!LoopbackPort.isListening(try #require(Int(port.trimmingCharacters(in: .whitespacesAndNewlines)))))
    }

    @Test func pipelinePackagesItsArchiveAfterEveryCheck() throws {
        let copy = try copy("pipeline")
        defer { try? FileManager.default.removeItem(at: copy) }
        let run = try OpsrunBinary.run(["-j", "2"], in: copy)
        #expect(run.status == 0)
        #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent("build/app.tgz").path))
        #expect(run.stdout.hasSuffix("7 succeeded\n"))
    }

    /// Issue 15: a real C program, one compile per `src/*.c` (cc is on every machine the tests
    /// run on), linked and run; then an edit recompiles that one file only, and an edited header
    /// the files whose depfiles list it.
    @Test func cProgramCompilesEachFileLinksAndRuns() throws {
        let copy = try copy("c-program")
        defer { try? FileManager.default.removeItem(at: copy) }
        let run = try OpsrunBinary.run(["-j", "2"], in: copy)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for file in ["greet", "main", "mathx", "reverse"] {
            #expect(run.stdout.contains("✓ compile[src/\(file).c] "), "\(file)")
            #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent("build/src/\(file).o").path))
        }
        let output = run.stdout.split(separator: "\n").filter { $0.hasPrefix("run ") }.map {
            $0.split(separator: "|", maxSplits: 1)[1].dropFirst()
        }
        #expect(output == ["hello, c-program!", "gcd(84, 36) = 12", "10! = 3628800", "opsrun reversed: nurspo"])
        #expect(run.stdout.hasSuffix("7 succeeded\n"))

        let source = copy.appendingPathComponent("src/mathx.c")
        let text = try String(contentsOf: source, encoding: .utf8)
        try text.replacingOccurrences(of: "result *= i;", with: "result = result * i;")
            .write(to: source, atomically: false, encoding: .utf8)
        let rerun = try OpsrunBinary.run(["--explain"], in: copy)
        #expect(rerun.status == 0)
        #expect(rerun.stdout.contains("compile[src/mathx.c] runs: source src/mathx.c changed"))
        #expect(!rerun.stdout.contains("compile[src/main.c]"))
        #expect(rerun.stdout.contains("10! = 3628800"))

        // Headers are not among the sources: each compile's depfile says which it includes, so
        // editing one recompiles exactly the files that include it.
        let plan = try OpsrunBinary.run(["-n", "compile[src/main.c]"], in: copy)
        #expect(plan.stdout.contains("    depfile build/src/main.d: include/mathx.h include/text.h src/main.c\n"), "\(plan.stdout)")
        for (header, includers) in [("mathx.h", ["main", "mathx"]), ("text.h", ["greet", "main", "reverse"])] {
            let file = copy.appendingPathComponent("include/\(header)")
            try (String(contentsOf: file, encoding: .utf8) + "int unused_\(header.prefix(while: { $0 != "." }))(void);\n")
                .write(to: file, atomically: false, encoding: .utf8)
            let edited = try OpsrunBinary.run(["--explain"], in: copy)
            #expect(edited.status == 0, "\(edited.stdout)\(edited.stderr)")
            for file in ["greet", "main", "mathx", "reverse"] {
                let recompiled = edited.stdout.contains("✓ compile[src/\(file).c] ")
                #expect(recompiled == includers.contains(file), "\(header): \(file)\n\(edited.stdout)")
                if recompiled {
                    #expect(edited.stdout.contains("compile[src/\(file).c] runs: source include/\(header) changed"))
                }
            }
        }
        #expect(try OpsrunBinary.run([], in: copy).stdout.hasSuffix("1 succeeded, 6 up to date\n"))
    }

    /// Issue 13: editing a source of the pipeline used to leave the archive as it was.
    @Test func pipelineRepackagesAfterASourceEdit() throws {
        let copy = try copy("pipeline")
        defer { try? FileManager.default.removeItem(at: copy) }
        #expect(try OpsrunBinary.run([], in: copy).status == 0)
        let main = copy.appendingPathComponent("src/main.txt")
        try (String(contentsOf: main, encoding: .utf8) + "edited line\n").write(to: main, atomically: false, encoding: .utf8)
        let rerun = try OpsrunBinary.run(["--explain"], in: copy)
        #expect(rerun.status == 0)
        #expect(rerun.stdout.contains("package runs: prerequisite "))
        let listing = Process()
        listing.executableURL = URL(fileURLWithPath: "/bin/tar")
        listing.arguments = ["-xzOf", copy.appendingPathComponent("build/app.tgz").path, "app.txt"]
        let pipe = Pipe()
        listing.standardOutput = pipe
        try listing.run()
        let archived = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        listing.waitUntilExit()
        #expect(archived.hasSuffix("edited line\n"))
    }
}
