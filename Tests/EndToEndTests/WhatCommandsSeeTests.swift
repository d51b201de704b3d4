import Foundation
import Testing

/// What a command sees, through the real binary (docs/manual/running.md, variables.md, cache.md):
/// `sh -e` and `shell:`, the real environment over a dotenv file, and a cache key that is
/// everything opsrun gives a command: its name, dotenv values, cleanup, and, for a cacheable
/// task, only the variables that enter its key (the strict environment).
@Suite struct WhatCommandsSeeTests {
    /// One cache shared by the clones of a test, apart from every other test's.
    let cacheDirectory = TemporaryCacheDirectory()
    var cache: String { cacheDirectory.path }

    func run(
        _ project: TemporaryProject, _ arguments: String..., environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> OpsrunBinary.Result {
        var env = environment
        env["OPSRUN_CACHE_DIR"] = env["OPSRUN_CACHE_DIR"] ?? cache
        return try OpsrunBinary.run(arguments, in: project.url, environment: env, sourceLocation: sourceLocation)
    }

    /// Whether the run ran `task` alone, and it succeeded.
    func ranOnly(_ task: String, _ result: OpsrunBinary.Result) -> Bool {
        result.status == 0 && result.stdout.hasPrefix("▶ \(task)\n✓ \(task) ") && result.stdout.hasSuffix("s\n1 succeeded\n")
    }

    func text(_ project: TemporaryProject, _ name: String) -> String? {
        try? String(contentsOfFile: project.path(name), encoding: .utf8)
    }

    // MARK: - sh -e and shell:

    @Test func aRunBlockStopsAtItsFirstFailingLine() throws {
        let project = try TemporaryProject("""
            tasks:
              block:
                run: |
                  echo one
                  false
                  echo two
            """)
        let result = try run(project, "block")
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("▶ block\nblock | one\n✗ block exit 1 after "))
        #expect(!result.stdout.contains("two"))
    }

    @Test func bashAddsPipefailAndTheDefaultShellDoesNot() throws {
        let project = try TemporaryProject("""
            tasks:
              plain: false | true
              strict:
                shell: bash
                run: false | true
            """)
        #expect(try run(project, "plain").status == 0)
        let strict = try run(project, "strict")
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("✗ strict exit 1 after "))
    }

    @Test func aManifestShellIsEveryTasksAndAListIsUsedAsGiven() throws {
        let project = try TemporaryProject("""
            shell: bash
            tasks:
              which: echo "$BASH_VERSION" | cut -c1 > which.txt
              python:
                shell: [python3, -c]
                run: print("hello from python")
            """)
        let which = try run(project, "which")
        #expect(which.status == 0)
        #expect(text(project, "which.txt")?.first?.isNumber == true)
        let python = try run(project, "python")
        #expect(python.status == 0)
        #expect(python.stdout.hasPrefix("▶ python\npython | hello from python\n"))
    }

    @Test func aShellThatIsNotOneIsAnErrorAtItsPlace() throws {
        let project = try TemporaryProject("""
            tasks:
              a:
                shell: zsh
                run: echo hi
            """)
        let result = try run(project, "a")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(
            "Tasksfile.yaml:3:12: error: 'shell' of task 'a' must be 'sh', 'bash' or a list of words, not 'zsh'; "
                + "for another interpreter write the words before the command as a list: [zsh, -c]\n"))
    }

    @Test func aChangedShellMakesTheTaskRunAgain() throws {
        let project = try TemporaryProject("""
            tasks:
              gen:
                sources: [in.txt]
                outputs: [out.txt]
                run: echo made >> ran.log; cp in.txt out.txt
            """, files: ["in.txt": "x\n"])
        #expect(try run(project, "gen").status == 0)
        #expect(try run(project, "gen").stdout == "0 succeeded, 1 up to date\n")
        let manifest = try String(contentsOfFile: project.path("Tasksfile.yaml"), encoding: .utf8)
        try manifest.replacingOccurrences(of: "    sources:", with: "    shell: bash\n    sources:")
            .write(toFile: project.path("Tasksfile.yaml"), atomically: true, encoding: .utf8)
        #expect(ranOnly("gen", try run(project, "gen")))
    }

    // MARK: - dotenv

    @Test func theRealEnvironmentWinsOverADotenvFile() throws {
        let project = try TemporaryProject("""
            dotenv: [.env]
            tasks:
              deploy: echo "to $DEPLOY_ENV"
            """, files: [".env": "DEPLOY_ENV=dev\n"])
        #expect(try run(project, "deploy").stdout.hasPrefix("▶ deploy\ndeploy | to dev\n"))
        #expect(try run(project, "deploy", environment: ["DEPLOY_ENV": "production"]).stdout
            .hasPrefix("▶ deploy\ndeploy | to production\n"))
    }

    @Test func aDotenvValueExpandsVariables() throws {
        let project = try TemporaryProject("""
            dotenv: [.env]
            tasks:
              show: echo "$URL $LITERAL"
            """, files: [".env": "PORT=8080\nURL=\"http://${HOST:-localhost}:${PORT}\"\nLITERAL='${PORT}'\n"])
        #expect(try run(project, "show").stdout.hasPrefix("▶ show\nshow | http://localhost:8080 ${PORT}\n"))
        #expect(try run(project, "show", environment: ["HOST": "cache.internal"]).stdout
            .hasPrefix("▶ show\nshow | http://cache.internal:8080 ${PORT}\n"))
    }

    /// A later file's own earlier line wins over an earlier file, as its value does.
    @Test func aDotenvValueSeesItsOwnFilesLinesBeforeAnEarlierFile() throws {
        let project = try TemporaryProject("""
            dotenv: [.env, .env.local]
            tasks:
              show: echo "$A $B"
            """, files: [".env": "A=1\n", ".env.local": "A=2\nB=${A}\n"])
        #expect(try run(project, "show").stdout.hasPrefix("▶ show\nshow | 2 2\n"))
    }

    // MARK: - the key

    static let reading = """
        dotenv: [.env]
        tasks:
          gen:
            sources: [in.txt]
            outputs: [out.txt]
            run: echo "$OPSRUN_TASK ${FLAVOR:-none}" > out.txt
        """

    @Test func aChangedDotenvMakesTheTaskRunAndIsNotRestoredToAnotherClone() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let project = try TemporaryProject(Self.reading, files: ["in.txt": "x\n", ".env": "FLAVOR=one\n"])
        #expect(try run(project, "gen").status == 0)
        #expect(text(project, "out.txt") == "gen one\n")
        try "FLAVOR=two\n".write(toFile: project.path(".env"), atomically: true, encoding: .utf8)
        #expect(ranOnly("gen", try run(project, "gen")))
        #expect(text(project, "out.txt") == "gen two\n")

        // A clone with the first `.env` restores the first output, and its own is what a run
        // without the cache makes.
        let clone = try TemporaryProject(Self.reading, files: ["in.txt": "x\n", ".env": "FLAVOR=one\n"])
        #expect(try run(clone, "gen").stdout == "↓ gen (cached)\n0 succeeded, 1 restored\n")
        let fresh = try TemporaryProject(Self.reading, files: ["in.txt": "x\n", ".env": "FLAVOR=one\n"])
        #expect(try run(fresh, "--no-cache", "gen").status == 0)
        #expect(text(clone, "out.txt") == text(fresh, "out.txt"))
    }

    @Test func twoTasksWithTheSameCommandsDoNotShareAnEntry() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let alpha = try TemporaryProject(
            Self.reading.replacingOccurrences(of: "  gen:", with: "  alpha:"), files: ["in.txt": "x\n"])
        #expect(try run(alpha, "alpha").status == 0)
        #expect(text(alpha, "out.txt") == "alpha none\n")
        let beta = try TemporaryProject(
            Self.reading.replacingOccurrences(of: "  gen:", with: "  beta:"), files: ["in.txt": "x\n"])
        #expect(ranOnly("beta", try run(beta, "beta")))
        #expect(text(beta, "out.txt") == "beta none\n")
    }

    @Test func aChangedCleanupMakesTheTaskRun() throws {
        let manifest = """
            tasks:
              gen:
                sources: [in.txt]
                outputs: [out.txt]
                run: cp in.txt out.txt
                cleanup: echo one > cleaned.txt
            """
        let project = try TemporaryProject(manifest, files: ["in.txt": "x\n"])
        #expect(try run(project, "gen").status == 0)
        #expect(try run(project, "gen").stdout == "0 succeeded, 1 up to date\n")
        try manifest.replacingOccurrences(of: "echo one", with: "echo two")
            .write(toFile: project.path("Tasksfile.yaml"), atomically: true, encoding: .utf8)
        #expect(ranOnly("gen", try run(project, "gen")))
        #expect(text(project, "cleaned.txt") == "two\n")
    }

    // MARK: - the strict environment

    @Test func aCacheableTaskDoesNotSeeAnOuterVariableAndIsWarned() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let project = try TemporaryProject(Self.reading, files: ["in.txt": "x\n"])
        let result = try run(project, "gen", environment: ["FLAVOR": "one"])
        #expect(result.status == 0)
        #expect(text(project, "out.txt") == "gen none\n")
        #expect(result.stderr == """
            Tasksfile.yaml:6:10: warning: task 'gen' reads $FLAVOR, which is set in opsrun's environment but hidden \
            from the task: a cacheable task sees only the variables that enter its cache key. To key on it, set it in \
            the task's 'env' (FLAVOR: ${FLAVOR}); to pass it without, list it in 'pass_env'

            """)
        // A task that cannot be cached sees opsrun's whole environment.
        let plain = try TemporaryProject("tasks:\n  show: echo \"${FLAVOR:-none}\"\n")
        #expect(try run(plain, "show", environment: ["FLAVOR": "one"]).stdout.hasPrefix("▶ show\nshow | one\n"))
    }

    @Test func aVariableNamedInEnvIsKeyedOnAndNeverRestoredToAnotherValue() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let keyed = Self.reading.replacingOccurrences(of: "    sources:", with: "    env: { FLAVOR: \"${FLAVOR}\" }\n    sources:")
        let project = try TemporaryProject(keyed, files: ["in.txt": "x\n"])
        #expect(try run(project, "gen", environment: ["FLAVOR": "one"]).stderr == "")
        #expect(text(project, "out.txt") == "gen one\n")
        #expect(ranOnly("gen", try run(project, "gen", environment: ["FLAVOR": "two"])))
        #expect(text(project, "out.txt") == "gen two\n")
        // Back to one: restored, and the same as a run without the cache.
        #expect(try run(project, "gen", environment: ["FLAVOR": "one"]).stdout == "↓ gen (cached)\n0 succeeded, 1 restored\n")
        let fresh = try TemporaryProject(keyed, files: ["in.txt": "x\n"])
        #expect(try run(fresh, "--no-cache", "gen", environment: ["FLAVOR": "one"]).status == 0)
        #expect(text(project, "out.txt") == text(fresh, "out.txt"))
    }

    @Test func passEnvLetsAVariableThroughWithoutKeyingOnIt() throws {
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let passing = Self.reading.replacingOccurrences(of: "    sources:", with: "    pass_env: [FLAV*]\n    sources:")
        let project = try TemporaryProject(passing, files: ["in.txt": "x\n"])
        let result = try run(project, "gen", environment: ["FLAVOR": "one"])
        #expect(result.stderr == "")
        #expect(text(project, "out.txt") == "gen one\n")
        // Not in the key: another value leaves the task up to date.
        #expect(try run(project, "gen", environment: ["FLAVOR": "two"]).stdout == "0 succeeded, 1 up to date\n")
    }

    @Test func opsrunsOwnSettingsReachNoTask() throws {
        // opsrun's own names only: the test run's environment may hold others (OPSRUN_BINARY).
        let project = try TemporaryProject("tasks:\n  show: env | grep -E '^OPSRUN_(TASK|CACHE_DIR|NO_CACHE|REMOTE)' | sort\n")
        let result = try run(
            project, "show",
            environment: ["OPSRUN_REMOTE_CACHE_HEADER": "Authorization: Bearer s3cret", "OPSRUN_REMOTE_CACHE_TIMEOUT": "5s"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("▶ show\nshow | OPSRUN_TASK=show\n✓ show"))
        #expect(!result.stdout.contains("s3cret"))
    }
}
