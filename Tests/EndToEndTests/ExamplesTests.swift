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
        // As a checkout is: older than the first run, so no file counts as changed while it ran.
        waitUntilFileTimesArePast(in: copy.path)
        return copy
    }

    /// Removes a copy and the output cache its runs used beside it.
    func remove(_ copy: URL) {
        try? FileManager.default.removeItem(at: copy)
        try? FileManager.default.removeItem(atPath: OpsrunBinary.cacheDirectory(for: copy))
    }

    @Test(arguments: [("hello", Int32(0)), ("diamond", 0), ("pipeline", 0), ("failing", 1), ("cycle", 2), ("c-program", 0), ("monorepo", 0), ("ci", 0)])
    func exampleRunsWithItsExpectedStatus(name: String, status: Int32) throws {
        let copy = try copy(name)
        defer { remove(copy) }
        let plan = try OpsrunBinary.run(["-n"], in: copy)
        #expect(plan.status == (status == 2 ? 2 : 0))
        let run = try OpsrunBinary.run([], in: copy)
        #expect(run.status == status, "\(run.stdout)\(run.stderr)")
    }

    /// Issue 16: a CI pipeline with a service on a free loopback port, an integration step that
    /// queries it, a cleanup that collects a log, and a JUnit report; nothing is left listening.
    @Test func ciServesTheSiteForTheIntegrationTestsThenStopsTheServer() throws {
        let copy = try copy("ci")
        defer { remove(copy) }
        let run = try OpsrunBinary.run(["-j", "2", "--junit", "junit.xml"], in: copy)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("integration | ok about.html"))
        #expect(run.stdout.contains("integration | logs collected in build/logs"))
        #expect(run.stdout.contains("4 succeeded, 1 service stopped"))
        let log = try String(contentsOf: copy.appendingPathComponent("build/logs/integration.log"), encoding: .utf8)
        #expect(log == "ok index.html\nok about.html\n")
        let junit = try String(contentsOf: copy.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.contains("tests=\"6\" failures=\"0\""))
        let port = try String(contentsOf: copy.appendingPathComponent("build/port"), encoding: .utf8)
        #expect(!LoopbackPort.isListening(try #require(Int(port.trimmingCharacters(in: .whitespacesAndNewlines)))))
    }

    @Test func pipelinePackagesItsArchiveAfterEveryCheck() throws {
        let copy = try copy("pipeline")
        defer { remove(copy) }
        let run = try OpsrunBinary.run(["-j", "2"], in: copy)
        #expect(run.status == 0)
        #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent("build/app.tgz").path))
        #expect(run.stdout.hasSuffix("6 succeeded\n"))
    }

    /// Issue 15 (docs/manual/includes.md): a root manifest including two sub-projects that share its codegen;
    /// `opsrun web` runs web's default; a sub-project runs alone, except what needs the root.
    @Test func monorepoRunsWholeByNamespaceAndEachSubProjectAlone() throws {
        let copy = try copy("monorepo")
        defer { remove(copy) }
        let run = try OpsrunBinary.run(["-j", "2"], in: copy)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("web:build | web 1.4 built\n"))
        #expect(run.stdout.contains("api:test  | api tests pass in api\n"))
        #expect(run.stdout.hasSuffix("5 succeeded\n"))
        #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent("web/dist/app.txt").path))
        #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent("services/api/bin/api.txt").path))
        #expect(!FileManager.default.fileExists(atPath: copy.appendingPathComponent("web/.opsrun").path))

        let list = try OpsrunBinary.run(["--list"], in: copy)
        #expect(list.stdout.contains("all (default)  Build the web app and test the API\n"))
        #expect(list.stdout.contains("\nweb (web/Tasksfile.yaml; 'opsrun web' runs web:build):\n  web:lint       Check the web sources\n"))

        // The shared schema changes: codegen, then both builds run again.
        try "type Greeting = { text: string }\n".write(
            to: copy.appendingPathComponent("schema/api.txt"), atomically: false, encoding: .utf8)
        let web = try OpsrunBinary.run(["web", "--explain"], in: copy)
        #expect(web.status == 0, "\(web.stdout)\(web.stderr)")
        #expect(web.stdout.contains("codegen runs: source schema/api.txt changed"))
        #expect(web.stdout.contains("✓ web:build "))
        #expect(!web.stdout.contains("api:"))

        let alone = try OpsrunBinary.run(["-C", "web", "lint"], in: copy)
        #expect(alone.status == 0, "\(alone.stdout)\(alone.stderr)")
        #expect(alone.stdout.contains("lint | web lint ok\n"))
        let needsRoot = try OpsrunBinary.run(["-C", "web", "build"], in: copy)
        #expect(needsRoot.status == 2)
        #expect(needsRoot.stderr.hasPrefix(
            "web/Tasksfile.yaml:13:12: error: task 'build' depends on ':codegen', but web/Tasksfile.yaml has no task 'codegen'"))
        // The command that works, from the manifest above that includes web as 'web'.
        #expect(needsRoot.stderr.contains("runs from the manifest that includes it: opsrun web:build\n"), "\(needsRoot.stderr)")
        let fromInside = try OpsrunBinary.run(["build"], in: copy.appendingPathComponent("web"))
        #expect(fromInside.stderr.contains("runs from the manifest that includes it: opsrun -C .. web:build\n"), "\(fromInside.stderr)")
    }

    /// Issue 15: `-n` and `-v` show the commands with the variables opsrun sets substituted, as
    /// `make -n` does; the JSON plan keeps them as written, and the shell runs them as written.
    @Test func cProgramPlanAndVerboseShowSubstitutedCommands() throws {
        let copy = try copy("c-program")
        defer { remove(copy) }
        let plan = try OpsrunBinary.run(["-n"], in: copy)
        #expect(plan.stdout.contains(
            "    $ cc -O2 -Wall -Wextra -Iinclude -MMD -MF \"build/src/main.d\" -c \"src/main.c\" -o \"build/src/main.o\"\n"),
            "\(plan.stdout)")
        #expect(plan.stdout.contains("    $ cc -o build/hello $(for src in src/*.c; do echo \"build/${src%.c}.o\"; done)\n"), "\(plan.stdout)")
        let overridden = try OpsrunBinary.run(["-n", "compile[src/greet.c]", "CFLAGS=-O0"], in: copy)
        #expect(overridden.stdout.contains("    $ cc -O0 -MMD -MF \"build/src/greet.d\" -c \"src/greet.c\""))
        let json = try OpsrunBinary.run(["-n", "--format", "json", "compile[src/greet.c]"], in: copy)
        #expect(json.stdout.contains("\"$CC $CFLAGS -MMD -MF \\\"build/${SRC%.c}.d\\\""))

        let verbose = try OpsrunBinary.run(["-v", "-j", "1", "link"], in: copy)
        #expect(verbose.status == 0, "\(verbose.stdout)\(verbose.stderr)")
        #expect(verbose.stdout.contains("cc -O2 -Wall -Wextra -Iinclude -MMD -MF \"build/src/mathx.d\" -c \"src/mathx.c\""), "\(verbose.stdout)")
    }

    /// Issue 15: a real C program, one compile per `src/*.c` (cc is on every machine the tests
    /// run on), linked and run; then an edit recompiles that one file only, and an edited header
    /// the files whose depfiles list it.
    @Test func cProgramCompilesEachFileLinksAndRuns() throws {
        let copy = try copy("c-program")
        defer { remove(copy) }
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
        #expect(run.stdout.hasSuffix("6 succeeded\n"))

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
        #expect(try OpsrunBinary.run([], in: copy).stdout.hasSuffix("1 succeeded, 5 up to date\n"))
    }

    /// Issue 13: editing a source of the pipeline used to leave the archive as it was.
    @Test func pipelineRepackagesAfterASourceEdit() throws {
        let copy = try copy("pipeline")
        defer { remove(copy) }
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
