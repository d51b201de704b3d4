import Foundation
import Testing

/// docs/manual/includes.md's includes through the real binary: what an included manifest's tasks see.
@Suite struct IncludesTests {
    /// A root and two sub-projects, each with its own `.env` setting PORT.
    func projectWithThreeDotenvFiles() throws -> TemporaryProject {
        try TemporaryProject(
            "dotenv: [.env]\nincludes:\n  web: web\n  api: api\ntasks:\n  show: echo \"root PORT=$PORT\"\n",
            files: [
                ".env": "PORT=1000\n",
                "web/Tasksfile.yaml": "dotenv: [.env]\ntasks:\n  show: echo \"web PORT=$PORT\"\n",
                "web/.env": "PORT=8080\n",
                "api/Tasksfile.yaml": "dotenv: [.env]\ntasks:\n  show: echo \"api PORT=$PORT\"\n",
                "api/.env": "PORT=9090\n",
            ])
    }

    @Test func anIncludedManifestsDotenvIsItsOwnNotTheWholeRuns() throws {
        let project = try projectWithThreeDotenvFiles()
        let result = try project.run("-j", "1", "show", "web:show", "api:show")
        #expect(result.status == 0)
        #expect(result.stdout.contains("root PORT=1000\n"))
        #expect(result.stdout.contains("web PORT=8080\n"))
        #expect(result.stdout.contains("api PORT=9090\n"))
        // The same sub-project run alone sees the same value.
        let alone = try project.run("-C", "web", "show")
        #expect(alone.stdout.contains("web PORT=8080\n"))
    }

    @Test func everyDotenvFilesErrorsAreReportedAtOnce() throws {
        // Before: only the first broken file was reported; fixing it revealed the next.
        let project = try TemporaryProject(
            "dotenv: [.env]\nincludes:\n  web: web\ntasks:\n  show: echo root\n",
            files: [
                ".env": "A=1\nC\n",
                "web/Tasksfile.yaml": "dotenv: [.env]\ntasks:\n  show: echo web\n",
                "web/.env": "W=1\nbroken\n",
            ])
        let result = try project.run("show")
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains(".env:2:1: error: expected NAME=VALUE, but this line has no '=' after the name"), "\(result.stderr)")
        #expect(lines.contains("web/.env:2:1: error: expected NAME=VALUE, but this line has no '=' after the name"))
    }

    /// A dotenv file holds defaults: the root's `env`, opsrun's environment and the sub-project's
    /// own `env` all win over it.
    @Test func aSubProjectsDotenvFillsInWhatNothingElseSets() throws {
        let project = try TemporaryProject(
            "env:\n  A: root\n  B: root\nincludes:\n  web: web\n",
            files: [
                "web/Tasksfile.yaml": "dotenv: [.env]\nenv:\n  B: web-env\ntasks:\n  show: echo \"A=$A B=$B C=$C D=$D\"\n",
                "web/.env": "A=web-dotenv\nB=web-dotenv\nC=web-dotenv\nD=web-dotenv\n",
            ])
        let result = try project.run("web:show", environment: ["D": "shell"])
        #expect(result.stdout.contains("A=root B=web-env C=web-dotenv D=shell\n"), "\(result.stdout)")
        // A NAME=VALUE argument still wins over every file.
        let overridden = try project.run("web:show", "A=cli")
        #expect(overridden.stdout.contains("A=cli B=web-env C=web-dotenv D=web-dotenv\n"))
    }

    @Test func aMisspeltRootNameInAnIncludedFileSuggestsTheRootsTask() throws {
        let project = try TemporaryProject(
            "includes:\n  web: web\ntasks:\n  codegen: echo cg\n",
            files: ["web/Tasksfile.yaml": "tasks:\n  build:\n    deps: [\":codgen\"]\n    run: echo built\n"])
        let result = try project.run("web:build")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(
            "web/Tasksfile.yaml:3:12: error: task 'web:build' depends on ':codgen', but Tasksfile.yaml has no task 'codgen'; "
                + "did you mean ':codegen'?\n"), "\(result.stderr)")
        // The graph draws what it can, and says which edge it leaves out.
        let graph = try project.run("--graph", "web:build")
        #expect(graph.status == 0)
        #expect(graph.stdout.contains("web:build"))
        #expect(graph.stderr.hasPrefix(
            "web/Tasksfile.yaml:3:12: warning: task 'web:build' depends on ':codgen', which Tasksfile.yaml does not have: "
                + "the graph leaves that edge out, and a run of the task is refused\n"), "\(graph.stderr)")
        #expect(try project.run("--graph", "codegen").stderr == "")
    }

    /// A root whose `env` sets the compiler, and a sub-project whose task needs the root's
    /// `:codegen`.
    func projectWithRootVariables() throws -> TemporaryProject {
        try TemporaryProject(
            "env:\n  CC: cc\n  CFLAGS: -O2\nincludes:\n  lib: lib\ntasks:\n  codegen: echo codegen\n",
            files: [
                "lib/Tasksfile.yaml": """
                    tasks:
                      gen:
                        deps: [":codegen"]
                        run: echo gen
                      test:
                        deps: [gen]
                        run: echo test "$@"
                      show:
                        run: echo "CC=$CC"
                    """
            ])
    }

    /// Issue 29: the command suggested for a sub-project run alone named the task holding the
    /// `:codegen` edge (`opsrun lib:gen`), not the run asked for; it is the user's own tasks,
    /// variables and arguments, from the including manifest.
    @Test func theCommandSuggestedForASubProjectRunAloneIsTheRunAskedFor() throws {
        let project = try projectWithRootVariables()
        let alone = try project.run("-C", "lib", "test", "MODE=fast", "--", "-k", "a b")
        #expect(alone.status == 2)
        #expect(alone.stderr.hasPrefix("""
            lib/Tasksfile.yaml:3:12: error: task 'gen' depends on ':codegen', but lib/Tasksfile.yaml has no task 'codegen'; \
            a name starting with ':' is a task of the root manifest, so a sub-project that uses one runs from the manifest \
            that includes it: opsrun lib:test MODE=fast -- -k 'a b'

            """), "\(alone.stderr)")
        let inside = try OpsrunBinary.run(["test"], in: project.url.appendingPathComponent("lib"))
        #expect(inside.stderr.contains("that includes it: opsrun -C .. lib:test\n"), "\(inside.stderr)")
    }

    /// Issue 29: `opsrun -C lib` lost the root's `CC` and `CFLAGS` without a word, and `cc`
    /// failed with exit 127. A sub-project run alone whose including manifest sets variables
    /// warns once, before anything runs, naming that manifest and how to run it as included.
    @Test func aSubProjectRunAloneWarnsThatItLacksTheIncludingManifestsEnv() throws {
        let project = try projectWithRootVariables()
        let alone = try project.run("-C", "lib", "show")
        #expect(alone.status == 0)
        #expect(alone.stderr == """
            warning: lib/Tasksfile.yaml runs here on its own, without the env (CC, CFLAGS) set by Tasksfile.yaml, \
            which includes it; to run it as included: opsrun lib:show

            """)
        #expect(alone.stdout.contains("show | CC=\n"))
        let inside = try OpsrunBinary.run(["show"], in: project.url.appendingPathComponent("lib"))
        #expect(inside.stderr == """
            warning: Tasksfile.yaml runs here on its own, without the env (CC, CFLAGS) set by ../Tasksfile.yaml, \
            which includes it; to run it as included: opsrun -C .. lib:show

            """)
        // Run as included, or from a root that sets nothing, there is nothing to say.
        let included = try project.run("lib:show")
        #expect(included.stderr == "")
        #expect(included.stdout.contains("lib:show | CC=cc\n"))
        let quiet = try TemporaryProject(
            "includes:\n  lib: lib\n", files: ["lib/Tasksfile.yaml": "tasks:\n  show: echo show\n"])
        #expect(try quiet.run("-C", "lib", "show").stderr == "")
    }

    /// Looking above a sub-project for the manifest that includes it writes nothing there: a large
    /// one (whose parsed form opsrun caches in its own project) is read, not cached.
    @Test func lookingForTheIncludingManifestWritesNothingAboveTheProjectRun() throws {
        let padding = String(repeating: "# a long manifest, large enough for its parsed form to be cached\n", count: 1100)
        let project = try TemporaryProject(
            padding + "env: { CC: cc }\nincludes:\n  lib: lib\n", files: ["lib/Tasksfile.yaml": "tasks:\n  show: echo show\n"])
        let alone = try project.run("-C", "lib", "show")
        #expect(alone.status == 0)
        #expect(alone.stderr.hasPrefix("warning: lib/Tasksfile.yaml runs here on its own"), "\(alone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: project.path(".opsrun")))
    }
}
