import Foundation
import Testing

/// docs/manual/variables.md, expansion and required variables, through the real binary.
@Suite struct ExpansionAndRequiresTests {
    @Test func theShellsFormsExpandInEnvDirSourcesAndOutputs() throws {
        let project = try TemporaryProject(
            """
            env:
              SRC: src/lib/a.c
              OBJ: "build/${SRC%.c}.o"
              NAME: "${SRC##*/}"
              MODE: "${MODE:-release}"
              TAG: "${OPSRUN_TEST_CI:+ci-}${MODE}"
            tasks:
              compile:
                dir: "${WORK:-.}"
                sources: ["${SRC}"]
                outputs: ["${OBJ}"]
                run: mkdir -p build/src/lib && echo "$NAME $MODE $TAG" > "$OBJ"
            """, files: ["src/lib/a.c": "int a;\n"])
        let result = try project.run()
        #expect(result.status == 2)  // no default: name the task
        #expect(try project.run("compile").status == 0)
        #expect(try String(contentsOfFile: project.path("build/src/lib/a.o"), encoding: .utf8) == "a.c release release\n")
        // The output's name came from the expansion: the second run finds it and skips the task.
        let again = try project.run("compile", "--explain")
        #expect(again.stdout == "0 succeeded, 1 up to date\n")
        #expect(try project.run("compile", "MODE=debug", "OPSRUN_TEST_CI=1").status == 0)
        #expect(try String(contentsOfFile: project.path("build/src/lib/a.o"), encoding: .utf8) == "a.c debug ci-debug\n")
    }

    @Test func anUnsupportedFormIsAnErrorAtItsPlace() throws {
        let project = try TemporaryProject(
            """
            tasks:
              build:
                outputs: ["out/${X:-a}", "out/${X/a/b}"]
                dir: ${DIR
                run: touch ran
            """)
        let result = try project.run("build")
        #expect(result.status == 2)
        #expect(result.stderr.contains("Tasksfile.yaml:3:35: error: unsupported expansion '${X/a/b}' in 'outputs' of task 'build': pattern substitution (${NAME/pattern/string}) is not supported;"))
        #expect(result.stderr.contains("Tasksfile.yaml:4:10: error: unclosed '${' in 'dir' of task 'build': '${DIR' has no '}'; write $$ for a literal $\n"))
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
    }

    @Test func colonQuestionStopsTheRunNamingTheTaskAndTheVariable() throws {
        let project = try TemporaryProject(
            """
            tasks:
              deploy:
                env: { URL: "https://${HOST:?set HOST to the API host}/v1" }
                run: touch ran
            """)
        let result = try project.run("deploy")
        #expect(result.status == 2)
        #expect(result.stderr == """
            Tasksfile.yaml:3:26: error: the value of 'URL' in 'env' of task 'deploy' needs HOST, which is not set or is empty: set HOST to the API host
                env: { URL: "https://${HOST:?set HOST to the API host}/v1" }
                                     ^

            """)
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
        #expect(try project.run("deploy", "HOST=h").status == 0)
    }

    static let deploy = """
        dotenv: [.env]
        tasks:
          build: touch built
          deploy:
            deps: [build]
            requires: [DEPLOY_TOKEN, REGION]
            run: echo "$DEPLOY_TOKEN $REGION" > deployed
        """

    @Test func requiredVariablesMissingStopTheRunBeforeAnythingStarts() throws {
        let project = try TemporaryProject(Self.deploy)
        let result = try project.run("deploy", environment: ["REGION": ""])
        #expect(result.status == 2)
        #expect(result.stderr == """
            Tasksfile.yaml:6:16: error: task 'deploy' requires DEPLOY_TOKEN, REGION, which are not set or empty; set them in the environment, a dotenv file (.env), env:, or as NAME=VALUE arguments (DEPLOY_TOKEN=...)
                requires: [DEPLOY_TOKEN, REGION]
                           ^

            """)
        #expect(!FileManager.default.fileExists(atPath: project.path("built")))
        // A plan could not start either: the same error, the same exit status.
        let plan = try project.run("-n", "deploy")
        #expect(plan.status == 2)
        #expect(plan.stderr.contains("error: task 'deploy' requires DEPLOY_TOKEN, REGION, which are not set;"))
        // Only the tasks of the run need their variables; listing and graphs need none.
        #expect(try project.run("build").status == 0)
        #expect(try project.run("--list").status == 0)
        #expect(try project.run("--graph", "deploy").status == 0)
    }

    @Test func requiredVariablesMayComeFromAnyLayer() throws {
        let project = try TemporaryProject(Self.deploy, files: [".env": "DEPLOY_TOKEN=t1\n"])
        #expect(try project.run("deploy", "REGION=eu").status == 0)
        #expect(try String(contentsOfFile: project.path("deployed"), encoding: .utf8) == "t1 eu\n")
        #expect(try project.run("deploy", environment: ["REGION": "us"]).status == 0)
        #expect(try String(contentsOfFile: project.path("deployed"), encoding: .utf8) == "t1 us\n")
        let withEnv = try TemporaryProject(
            Self.deploy.replacingOccurrences(of: "    requires:", with: "    env: { REGION: \"${REGION:-eu}\" }\n    requires:"),
            files: [".env": "DEPLOY_TOKEN=t2\n"])
        #expect(try withEnv.run("deploy").status == 0)
        #expect(try String(contentsOfFile: withEnv.path("deployed"), encoding: .utf8) == "t2 eu\n")
    }

    /// opsrun's own settings reach no task, so requiring one is said to be impossible, not unset.
    @Test func requiringOneOfOpsrunsOwnSettingsSaysItNeverReachesATask() throws {
        let project = try TemporaryProject(
            """
            tasks:
              deploy:
                requires: [OPSRUN_REMOTE_CACHE]
                run: echo "$OPSRUN_REMOTE_CACHE"
            """)
        let result = try project.run("deploy", environment: ["OPSRUN_REMOTE_CACHE": "http://127.0.0.1:9/"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("""
            Tasksfile.yaml:3:16: error: task 'deploy' requires OPSRUN_REMOTE_CACHE, one of opsrun's own settings, \
            which never reach a task (a cache token in a task's environment would be printed into its logs); pass what \
            the task needs under a name of its own (env: { CACHE_URL: ... })
            """), "\(result.stderr)")
    }

    @Test func keysFromOtherToolsGetTheirOpsrunNames() throws {
        let project = try TemporaryProject(
            """
            tasks:
              build:
                cmds: [make]
                depends: [gen]
              gen: { run: true, generates: [x] }
            """)
        let result = try project.run("build")
        #expect(result.status == 2)
        #expect(result.stderr.contains("Tasksfile.yaml:3:5: error: unknown key 'cmds' in task 'build'; did you mean 'run'?\n"))
        #expect(result.stderr.contains("Tasksfile.yaml:4:5: error: unknown key 'depends' in task 'build'; did you mean 'deps'?\n"))
        #expect(result.stderr.contains("Tasksfile.yaml:5:21: error: unknown key 'generates' in task 'gen'; did you mean 'outputs'?\n"))
    }

    /// Issue 29: `sources: [$SRC]` was taken as a file named `$SRC`, and the missing source then
    /// read "did you mean 'src'?". Paths expand `${SRC}` only; `$SRC` is an error at its place
    /// saying what to write, in `sources`, `outputs`, `dir` and `depfile` alike.
    @Test func aVariableWithoutBracesInAPathSaysToWriteItWithBraces() throws {
        let project = try TemporaryProject(
            """
            tasks:
              compile:
                each: { SRC: [src/a.c] }
                run: cc -c "$SRC"
                sources: [$SRC]
                outputs: ["build/$SRC.o"]
                depfile: build/$DEP.d
              docs:
                dir: $OUT/docs
                run: echo docs
            """, files: ["src/a.c": "int a;\n"])
        let result = try project.run("compile")
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == """
            Tasksfile.yaml:5:15: error: '$SRC' in 'sources' of task 'compile' is not expanded: write '${SRC}' (or '$$' for a literal '$')
                sources: [$SRC]
                          ^
            Tasksfile.yaml:6:22: error: '$SRC' in 'outputs' of task 'compile' is not expanded: write '${SRC}' (or '$$' for a literal '$')
                outputs: ["build/$SRC.o"]
                                 ^
            Tasksfile.yaml:7:20: error: '$DEP' in 'depfile' of task 'compile' is not expanded: write '${DEP}' (or '$$' for a literal '$')
                depfile: build/$DEP.d
                               ^
            Tasksfile.yaml:9:10: error: '$OUT' in 'dir' of task 'docs' is not expanded: write '${OUT}' (or '$$' for a literal '$')
                dir: $OUT/docs
                     ^

            """)
        // `$$` is a literal `$`, and `${SRC}` expands: neither is an error.
        let fixed = try TemporaryProject(
            """
            tasks:
              compile:
                each: { SRC: [src/a.c] }
                run: cp "$SRC" "build/$SRC.o"
                sources: ["${SRC}", "price$$list.txt"]
                outputs: ["build/${SRC}.o"]
            """, files: ["src/a.c": "int a;\n", "price$list.txt": "1\n"])
        let ran = try fixed.run("compile")
        #expect(ran.status == 0, "\(ran.stderr)")
    }
}
