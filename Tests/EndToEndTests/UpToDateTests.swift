import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// docs/manual/up-to-date.md through the real binary: run only what changed, by content, and never trust a record
/// that a crash could have left wrong.
@Suite struct UpToDateTests {
    static let manifest = """
        default: link
        tasks:
          compile:
            sources: ["src/*.c"]
            outputs: [build/objs.txt]
            run:
              - mkdir -p build
              - echo compile >> ran.log
              - cat src/*.c > build/objs.txt
          docs:
            sources: [docs.md]
            outputs: [build/docs.html]
            run: mkdir -p build && echo docs >> ran.log && cp docs.md build/docs.html
          link:
            deps: [compile, docs]
            sources: [build/objs.txt]
            outputs: [build/app]
            env: { MODE: release }
            run: echo link >> ran.log && cat build/objs.txt > build/app && echo "$MODE" >> build/app
        """

    let project: TemporaryProject

    init() throws {
        project = try TemporaryProject(Self.manifest, files: ["src/a.c": "int a;\n", "src/b.c": "int b;\n", "docs.md": "# Docs\n"])
    }

    /// The tasks that ran (in order) since the last call.
    func ran() throws -> [String] {
        let path = project.path("ran.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: project.path(name), atomically: false, encoding: .utf8)
    }

    @Test func secondRunDoesNothing() throws {
        #expect(try project.run("-j", "1").status == 0)
        #expect(try ran() == ["compile", "docs", "link"])
        let second = try project.run()
        #expect(second.status == 0)
        #expect(try ran() == [])
        #expect(second.stdout == "0 succeeded, 3 up to date\n")
    }

    @Test func editingASourceRerunsOnlyWhatItReaches() throws {
        #expect(try project.run().status == 0)
        _ = try ran()
        try write("docs.md", "# Docs, edited\n")
        let result = try project.run("--explain")
        // link depends on docs, whose output changed; compile is not reached.
        #expect(try ran() == ["docs", "link"])
        #expect(result.stdout.contains("docs runs: source docs.md changed\n"))
        #expect(result.stdout.contains("link runs: prerequisite docs wrote different outputs\n"))
    }

    @Test func sameBytesWrittenAgainLetDependentsStayUpToDate() throws {
        #expect(try project.run().status == 0)
        _ = try ran()
        // a.c changes but what compile writes does not: link is cut off (early cutoff).
        try write("src/a.c", "int a;\n")
        try write("src/b.c", "int b;\n")
        try write("src/z.c", "")
        #expect(try project.run().status == 0)
        #expect(try ran() == ["compile"])
    }

    @Test func changingACommandOrEnvironmentRerunsThatTask() throws {
        #expect(try project.run().status == 0)
        _ = try ran()
        let edited = Self.manifest.replacingOccurrences(of: "MODE: release", with: "MODE: debug")
        try edited.write(toFile: project.path("Tasksfile.yaml"), atomically: true, encoding: .utf8)
        let result = try project.run("--explain")
        #expect(try ran() == ["link"])
        #expect(result.stdout.contains("link runs: environment changed\n"))
        let command = edited.replacingOccurrences(of: "cp docs.md", with: "cp -f docs.md")
        try command.write(toFile: project.path("Tasksfile.yaml"), atomically: true, encoding: .utf8)
        let again = try project.run("--explain")
        #expect(try ran() == ["docs"])
        #expect(again.stdout.contains("docs runs: command changed\n"))
        // A variable added on the command line is named (a changed value cannot be: the state
        // keeps a digest of the values, never the values).
        let added = try project.run("--explain", "UNUSED=1")
        #expect(added.stdout.contains("link runs: variable UNUSED added to its environment\n"), "\(added.stdout)")
    }

    @Test func deletingAnOutputRerunsItsTask() throws {
        #expect(try project.run().status == 0)
        _ = try ran()
        try FileManager.default.removeItem(atPath: project.path("build/app"))
        // Without the output cache, which would restore it (OutputCacheTests).
        let result = try project.run("--explain", "--no-cache")
        #expect(try ran() == ["link"])
        #expect(result.stdout.contains("link runs: output build/app missing\n"))
    }

    @Test func forceRunsEverythingAndDryRunMarksWhatIsUpToDate() throws {
        #expect(try project.run().status == 0)
        _ = try ran()
        try write("docs.md", "# Changed\n")
        let plan = try project.run("-n", "-j", "1")
        #expect(plan.stdout.contains("compile (up to date)"))
        #expect(plan.stdout.contains("  docs\n"))
        #expect(try ran() == [])
        #expect(try project.run("-B").status == 0)
        #expect(Set(try ran()) == ["compile", "docs", "link"])
    }

    @Test func aTaskWithoutSourcesRunsUnlessAllItsOutputsExist() throws {
        let plain = try TemporaryProject("""
            tasks:
              always: echo always >> log
              made: { run: echo made >> log && touch made.txt, outputs: [made.txt] }
            """)
        // -j 1: both tasks append to one log, so their order must be fixed.
        #expect(try plain.run("-j", "1", "always", "made").status == 0)
        #expect(try plain.run("-j", "1", "always", "made").status == 0)
        #expect(try String(contentsOfFile: plain.path("log"), encoding: .utf8) == "always\nmade\nalways\n")
    }

    /// docs/manual/up-to-date.md: a task without sources is up to date only while its prerequisites' outputs are
    /// what they were at its last successful run.
    @Test func prerequisiteWithNewOutputsRerunsDependentWithoutSources() throws {
        let project = try TemporaryProject("""
            tasks:
              gen: { sources: [in.txt], outputs: [gen.txt], run: cp in.txt gen.txt }
              pack: { deps: [gen], outputs: [pack.txt], run: cp gen.txt pack.txt }
            """, files: ["in.txt": "one\n"])
        #expect(try project.run("pack").status == 0)
        try "two\n".write(toFile: project.path("in.txt"), atomically: false, encoding: .utf8)
        let second = try project.run("pack", "--explain")
        #expect(second.status == 0)
        #expect(second.stdout.contains("pack runs: prerequisite gen wrote different outputs\n"))
        #expect(try String(contentsOfFile: project.path("pack.txt"), encoding: .utf8) == "two\n")
        #expect(try project.run("pack").stdout == "0 succeeded, 2 up to date\n")
    }

    /// A file an `outputs` glob matched at the last run, deleted since, makes its task run again.
    @Test func aDeletedFileOfAnOutputsGlobRerunsItsTask() throws {
        let project = try TemporaryProject("""
            tasks:
              split:
                sources: [in.txt]
                outputs: ["parts/*.txt"]
                run: mkdir -p parts && echo a > parts/a.txt && echo b > parts/b.txt
              stamp: { outputs: ["stamps/*"], run: mkdir -p stamps && touch stamps/x stamps/y }
            """, files: ["in.txt": "in\n"])
        #expect(try project.run("split", "stamp").status == 0)
        try FileManager.default.removeItem(atPath: project.path("parts/b.txt"))
        try FileManager.default.removeItem(atPath: project.path("stamps/y"))
        let result = try project.run("split", "stamp", "--explain", "--no-cache")
        #expect(result.status == 0)
        #expect(result.stdout.contains("split runs: output parts/b.txt missing\n"))
        #expect(result.stdout.contains("stamp runs: output stamps/y missing\n"))
        #expect(FileManager.default.fileExists(atPath: project.path("parts/b.txt")))
        #expect(FileManager.default.fileExists(atPath: project.path("stamps/y")))
    }

    /// A group runs nothing and is not counted (issue 29): a no-op run of three tasks under a
    /// group is three up to date, not four.
    @Test func aNoOpRunCountsTheTasksUnderAGroupNotTheGroup() throws {
        #expect(try project.run("-j", "1").status == 0)
        let grouped = Self.manifest.replacingOccurrences(of: "default: link", with: "default: all")
            + "\n  all: { deps: [link] }\n"
        try grouped.write(toFile: project.path("Tasksfile.yaml"), atomically: true, encoding: .utf8)
        #expect(try project.run().stdout == "0 succeeded, 3 up to date\n")
        try write("docs.md", "# Docs, edited\n")
        #expect(try project.run().stdout.hasSuffix("2 succeeded, 1 up to date\n"))
    }

    /// Kills opsrun with SIGKILL at varied moments, changes an input, and checks that the next run
    /// never skips a task whose inputs changed.
    @Test func killedRunsNeverLeaveATaskLookingUpToDate() throws {
        let crash = try TemporaryProject("""
            default: all
            tasks:
              slow:
                sources: [input.txt]
                outputs: [out.txt]
                run: sleep 0.02; cp input.txt out.txt
              next:
                deps: [slow]
                sources: [out.txt]
                outputs: [final.txt]
                run: cp out.txt final.txt
              all: { deps: [next] }
            """, files: ["input.txt": "0\n"])
        // The moments are random, from a seed every failure names.
        var generator = SeededRandom()
        for round in 1...12 {
            try "\(round)\n".write(toFile: crash.path("input.txt"), atomically: false, encoding: .utf8)
            let running = try OpsrunBinary.start([], in: crash.url)
            let delay = UInt32.random(in: 0...60_000, using: &generator)
            // The kill's moment, the quantity under test: not a wait for anything.
            usleep(delay)
            kill(running.pid, SIGKILL)
            running.wait()
            // Whatever the kill interrupted, a clean run must bring everything up to this input.
            let context: Comment = "round \(round), killed after \(delay) µs; \(SeededRandom.replay)"
            let result = try OpsrunBinary.run([], in: crash.url)
            #expect(result.status == 0, context)
            #expect(try String(contentsOfFile: crash.path("final.txt"), encoding: .utf8) == "\(round)\n", context)
        }
    }

    /// Issue 29: `--explain` said nothing in a run where no task has sources (there was no
    /// up-to-date bookkeeping to ask); each task that runs still says why, in a plan too.
    @Test func explainSaysWhyEachTaskRunsWhenNoTaskHasSources() throws {
        let project = try TemporaryProject(
            """
            tasks:
              a: echo a
              b:
                deps: [a]
                run: echo b
              all:
                deps: [b]
            """)
        let run = try project.run("--explain", "all")
        #expect(run.status == 0)
        #expect(run.stdout.replacing(/[0-9.]+s\n/, with: "Ns\n") == """
            a runs: it has no sources
            ▶ a
            a | a
            ✓ a Ns
            b runs: it has no sources
            ▶ b
            b | b
            ✓ b Ns
            2 succeeded

            """)
        let plan = try project.run("--explain", "-n", "all")
        #expect(plan.status == 0)
        #expect(plan.stderr + plan.stdout == "a runs: it has no sources\nb runs: it has no sources\n" + """
            wave 1:
              a
                $ echo a
            wave 2:
              b
                $ echo b
            wave 3:
              all (group)

            """, "\(plan.stdout)\(plan.stderr)")
    }
}
