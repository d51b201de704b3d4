import Testing

/// SPEC §10's includes through the real binary: what an included manifest's tasks see.
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
}
