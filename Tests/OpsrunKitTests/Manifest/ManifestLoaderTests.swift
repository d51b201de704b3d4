import Testing

@testable import OpsrunKit
@testable import OpsrunManifest

@Suite struct ManifestLoaderTests {
    @Test func specExampleLoadsIntoPlainValues() throws {
        let manifest = try #require(ManifestTest.load("""
            version: 1
            default: build
            env:
              CFLAGS: -O2
            dotenv: [.env]
            queues:
              net:  { max: 2 }
              link: { max: 1 }
            tasks:
              fetch:
                desc: Download the sources
                run: curl -fsSL "$URL" -o src.tgz
                queue: net
                outputs: [src.tgz]
              compile:
                deps: [fetch]
                run:
                  - mkdir -p build
                  - cc $CFLAGS -c main.c -o build/main.o
                sources: ["src/**/*.c", "include/*.h"]
                outputs: [build/main.o]
                priority: high
              docs:
                run: make -C docs
                qos: background
                timeout: 10m
                retries: 2
                allow_failure: true
              lint: swift format lint -r Sources
              build:
                deps: [compile, docs]
            """))
        #expect(manifest.file == "Tasksfile.yaml")
        #expect(manifest.directory == "/project")
        #expect(manifest.defaultTasks.map(\.value) == ["build"])
        #expect(manifest.environment == [EnvironmentEntry(name: "CFLAGS", value: "-O2", location: .init(file: "Tasksfile.yaml", line: 4, column: 3))])
        #expect(manifest.dotenvFiles.map(\.value) == [".env"])
        #expect(manifest.queues.map { "\($0.name)=\($0.maxConcurrent)@\(ManifestTest.at($0.location))" } == ["net=2@7:3", "link=1@8:3"])
        #expect(manifest.tasks.map(\.name) == ["fetch", "compile", "docs", "lint", "build"])

        let fetch = manifest.tasks[0]
        #expect(ManifestTest.at(fetch.location) == "10:3")
        #expect(fetch.description == "Download the sources")
        #expect(fetch.commands.map(\.value) == [#"curl -fsSL "$URL" -o src.tgz"#])
        #expect(fetch.queue?.value == "net")
        #expect(fetch.outputs.map(\.value) == ["src.tgz"])

        let compile = manifest.tasks[1]
        #expect(compile.deps.map { "\($0.value)@\(ManifestTest.at($0.location))" } == ["fetch@16:12"])
        #expect(compile.commands.map { "\($0.value)@\(ManifestTest.at($0.location))" } == [
            "mkdir -p build@18:9", "cc $CFLAGS -c main.c -o build/main.o@19:9",
        ])
        #expect(compile.sources.map(\.value) == ["src/**/*.c", "include/*.h"])
        #expect(compile.priority == .high)
        #expect(compile.qualityOfService == .default)

        let docs = manifest.tasks[2]
        #expect(docs.qualityOfService == .background)
        #expect(docs.timeoutMilliseconds == 600_000)
        #expect(docs.retries == 2)
        #expect(docs.allowFailure)
        #expect(!docs.interactive)

        let lint = manifest.tasks[3]
        #expect(lint.commands.map { "\($0.value)@\(ManifestTest.at($0.location))" } == ["swift format lint -r Sources@29:9"])
        #expect(manifest.tasks[4].isGroup)
        #expect(manifest.tasks[4].deps.map(\.value) == ["compile", "docs"])
    }

    @Test func shorthandListIsTheTasksCommandsAndOptionalKeysMayBeEmpty() throws {
        let manifest = try #require(ManifestTest.load("""
            default: [a, b]
            env:
            tasks:
              a: [make, make install]
              b:
                run: [one]
                dir: sub/${NAME}
                env: { X: "1", EMPTY: }
                desc: |
                  Only one line
                timeout:
                interactive: false
            """))
        #expect(manifest.defaultTasks.map(\.value) == ["a", "b"])
        #expect(manifest.tasks[0].commands.map(\.value) == ["make", "make install"])
        let b = manifest.tasks[1]
        #expect(b.directory?.value == "sub/${NAME}")
        #expect(b.environment.map { "\($0.name)=\($0.value)" } == ["X=1", "EMPTY="])
        #expect(b.description == "Only one line")
        #expect(b.timeoutMilliseconds == nil)
    }

    @Test func mergeKeysShareSettingsBetweenTasks() throws {
        let manifest = try #require(ManifestTest.load("""
            x-slow: &slow
              timeout: 1h30m
              qos: utility
            tasks:
              a:
                <<: *slow
                run: make a
              b:
                <<: *slow
                qos: background
                run: make b
            """))
        #expect(manifest.tasks.map(\.timeoutMilliseconds) == [5_400_000, 5_400_000])
        #expect(manifest.tasks.map(\.qualityOfService) == [.utility, .background])
    }

    @Test func aMisspeltKeyOfAnotherToolGetsTheOpsrunKey() {
        #expect(ManifestTest.errors("""
            enviroment: { A: b }
            tasks:
              a:
                enviroment: { A: b }
                working_dir: sub
                run: make
              b:
                foreach: { SRC: "*.c" }
                run: cc "$SRC"
            """) == [
            "Tasksfile.yaml:1:1: error: unknown top-level key 'enviroment'; did you mean 'env'?",
            "Tasksfile.yaml:4:5: error: unknown key 'enviroment' in task 'a'; did you mean 'env'?",
            "Tasksfile.yaml:5:5: error: unknown key 'working_dir' in task 'a'; did you mean 'dir'?",
            "Tasksfile.yaml:8:5: error: unknown key 'foreach' in task 'b'; did you mean 'each'?",
        ])
    }

    @Test func aDependencyOnAnInstanceSaysDepsNameTasks() {
        #expect(ManifestTest.errors("""
            tasks:
              a: { each: { X: [p, q] }, run: echo $X }
              b: { deps: ["a[p]"], run: echo b }
            """) == [
            "Tasksfile.yaml:3:15: error: unknown task 'a[p]' in deps of 'b'; deps name tasks, not their instances: 'a' means every instance",
        ])
    }

    @Test func aTaskKeyIndentedTooLittleIsAnErrorNotATask() {
        // Before: `deps: [lint]` became a task running the command `lint`, `build` lost its
        // prerequisite, and `opsrun build` succeeded without linting.
        #expect(ManifestTest.errors("""
            tasks:
              lint: echo lint
              build:
                run: echo build
              deps: [lint]
              env:
                A: "1"
              run:
                desc: a task named run, in the long form
                run: ./app
              cleanup: rm -rf build
              cache: { service: true, run: redis-server }
            sources: [a.c]
            """) == [
            "Tasksfile.yaml:5:3: error: 'deps' is a task key, written here as a task at the level of 'tasks'; "
                + "if it belongs to 'build' above, indent it under that task; a task named 'deps' needs the long form ('deps: { run: ... }')",
            "Tasksfile.yaml:6:3: error: 'env' is a task key, written here as a task at the level of 'tasks'; "
                + "if it belongs to 'build' above, indent it under that task; a task named 'env' needs the long form ('env: { run: ... }')",
            "Tasksfile.yaml:13:1: error: unknown top-level key 'sources'; 'sources' is a key of a task: indent it under its task in 'tasks'",
        ])
    }

    @Test func unknownTopLevelKeySuggestsAndXKeysAreFree() {
        #expect(ManifestTest.errors("""
            x-anything: [whatever, { a: b }]
            taks:
              a: make
            tasks:
              a: make
            """) == ["Tasksfile.yaml:2:1: error: unknown top-level key 'taks'; did you mean 'tasks'?"])
        #expect(ManifestTest.errors("colour: red\ntasks: { a: make }\n") == ["Tasksfile.yaml:1:1: error: unknown top-level key 'colour'"])
    }

    @Test func onlyVersionOneIsKnown() {
        #expect(ManifestTest.errors("version: 2\ntasks: { a: make }\n") == ["Tasksfile.yaml:1:10: error: 'version' must be 1, not '2'"])
        #expect(ManifestTest.errors("version: [1]\ntasks: { a: make }\n") == ["Tasksfile.yaml:1:10: error: 'version' must be 1, not a list"])
        #expect(ManifestTest.errors("version: \"1\"\ntasks: { a: make }\n") == [])
    }

    @Test func defaultMustNameTasks() {
        #expect(ManifestTest.errors("""
            default: [biuld, zzz]
            tasks:
              build: make
            """) == [
            "Tasksfile.yaml:1:11: error: unknown task 'biuld' in 'default'; did you mean 'build'?",
            "Tasksfile.yaml:1:18: error: unknown task 'zzz' in 'default'",
        ])
        #expect(ManifestTest.errors("default: { a: b }\ntasks: { a: make }\n") == [
            "Tasksfile.yaml:1:10: error: 'default' must be a task name or a list of task names, not a mapping",
        ])
        #expect(ManifestTest.errors("default: [[a]]\ntasks: { a: make }\n") == [
            "Tasksfile.yaml:1:11: error: each entry in 'default' must be a task name, not a list",
        ])
    }

    @Test func environmentNeedsValidNamesAndStringValues() {
        #expect(ManifestTest.errors("""
            env:
              1X: a
              GOOD-NAME: b
              LIST: [a]
            tasks:
              t:
                run: make
                env: [A=1]
            """) == [
            "Tasksfile.yaml:2:3: error: invalid variable name '1X' in 'env'; use letters, digits and '_', not starting with a digit",
            "Tasksfile.yaml:3:3: error: invalid variable name 'GOOD-NAME' in 'env'; use letters, digits and '_', not starting with a digit",
            "Tasksfile.yaml:4:9: error: the value of 'LIST' in 'env' must be a string, not a list",
            "Tasksfile.yaml:8:10: error: 'env' of task 't' must be a mapping of variable names to values, not a list",
        ])
    }

    @Test func dotenvIsAFileNameOrAList() throws {
        #expect(try #require(ManifestTest.load("dotenv: .env\ntasks: { a: make }\n")).dotenvFiles.map(\.value) == [".env"])
        #expect(ManifestTest.errors("dotenv: { a: b }\ntasks: { a: make }\n") == [
            "Tasksfile.yaml:1:9: error: 'dotenv' must be a file name or a list of file names, not a mapping",
        ])
        #expect(ManifestTest.errors("dotenv: [.env, '', {a: b}]\ntasks: { a: make }\n") == [
            "Tasksfile.yaml:1:16: error: an entry in 'dotenv' is empty",
            "Tasksfile.yaml:1:20: error: each entry in 'dotenv' must be a file name, not a mapping",
        ])
    }

    @Test func queuesNeedAPositiveMaximum() {
        #expect(ManifestTest.errors("""
            queues:
              zero: { max: 0 }
              none: {}
              typo: { maxx: 2 }
              text: two
              sign: { max: +3 }
            tasks: { a: make }
            """) == [
            "Tasksfile.yaml:2:16: error: 'max' of queue 'zero' must be a positive integer, not '0'",
            "Tasksfile.yaml:3:3: error: queue 'none' needs 'max', the most of its tasks that may run at once",
            "Tasksfile.yaml:4:3: error: queue 'typo' needs 'max', the most of its tasks that may run at once",
            "Tasksfile.yaml:4:11: error: unknown key 'maxx' in queue 'typo'; did you mean 'max'?",
            "Tasksfile.yaml:5:9: error: queue 'text' must be a mapping like { max: 2 }, not a string",
            "Tasksfile.yaml:6:16: error: 'max' of queue 'sign' must be a positive integer, not '+3'",
        ])
        #expect(ManifestTest.errors("queues: [net]\ntasks: { a: make }\n") == [
            "Tasksfile.yaml:1:9: error: 'queues' must be a mapping of queue names to { max: N }, not a list",
        ])
    }

    @Test func tasksAreRequiredAndNotEmpty() {
        #expect(ManifestTest.errors("version: 1\n") == ["Tasksfile.yaml:1:1: error: the manifest has no 'tasks' mapping"])
        #expect(ManifestTest.errors("tasks:\n") == ["Tasksfile.yaml:1:1: error: the manifest has no tasks"])
        #expect(ManifestTest.errors("tasks: {}\n") == ["Tasksfile.yaml:1:1: error: the manifest has no tasks"])
        #expect(ManifestTest.errors("tasks: [a, b]\n") == [
            "Tasksfile.yaml:1:8: error: 'tasks' must be a mapping of task names to tasks, not a list",
        ])
        #expect(ManifestTest.errors("# nothing yet\n") == ["Tasksfile.yaml:1:1: error: the manifest is empty; it needs a 'tasks' mapping"])
        #expect(ManifestTest.errors("- a\n- b\n") == [
            "Tasksfile.yaml:1:1: error: the manifest must be a mapping with a 'tasks' key, not a list",
        ])
    }

    @Test func everyErrorIsReportedInFileOrder() {
        // 'default' is checked after 'tasks' but written before: the list comes out in file order.
        #expect(ManifestTest.errors("""
            default: nope
            tasks:
              a:
                run: x
                retries: many
              b:
                deps: [c]
                qos: slow
            bogus: 1
            """) == [
            "Tasksfile.yaml:1:10: error: unknown task 'nope' in 'default'",
            "Tasksfile.yaml:5:14: error: 'retries' of task 'a' must be a whole number of 0 or more, not 'many'",
            "Tasksfile.yaml:7:12: error: unknown task 'c' in deps of 'b'; did you mean 'a'?",
            "Tasksfile.yaml:8:10: error: unknown qos 'slow' in task 'b'; use user-interactive, user-initiated, default, utility or background",
            "Tasksfile.yaml:9:1: error: unknown top-level key 'bogus'",
        ])
    }

    @Test func anEarlierErrorDoesNotCascade() {
        // 'tasks' unreadable: 'default' is not checked against it.
        #expect(ManifestTest.errors("default: build\ntasks: [build]\n") == [
            "Tasksfile.yaml:2:8: error: 'tasks' must be a mapping of task names to tasks, not a list",
        ])
        // 'queues' unreadable: queue references are not checked against it.
        #expect(ManifestTest.errors("queues: net\ntasks:\n  a: { run: x, queue: net }\n") == [
            "Tasksfile.yaml:1:9: error: 'queues' must be a mapping of queue names to { max: N }, not a string",
        ])
        // A task with a bad name or a bad value still exists for its dependents.
        #expect(ManifestTest.errors("tasks:\n  a b: make\n  c: { run: [[x]] }\n  d:\n    deps: [a b, c]\n") == [
            "Tasksfile.yaml:2:3: error: invalid task name 'a b': a space is not allowed; use ASCII letters, digits, '_', '-', '.' and ':'",
            "Tasksfile.yaml:3:14: error: each command of task 'c' must be a string, not a list",
        ])
        // A bad queue is still declared for its users.
        #expect(ManifestTest.errors("queues:\n  net: { max: 0 }\ntasks:\n  a: { run: x, queue: net }\n") == [
            "Tasksfile.yaml:2:15: error: 'max' of queue 'net' must be a positive integer, not '0'",
        ])
    }

    @Test func yamlErrorsComeThrough() {
        #expect(ManifestTest.errors("tasks:\n  a: make\n  a: other\n") == [
            "Tasksfile.yaml:3:3: error: duplicate key 'a' (first written at line 2, column 3)",
        ])
    }

    @Test func aHundredThousandTasksInAChainLoad() throws {
        var text = "default: t99999\ntasks:\n  t0: true\n"
        for i in 1..<100_000 { text += "  t\(i): { deps: [t\(i - 1)], run: 'true' }\n" }
        let manifest = try #require(ManifestTest.load(text))
        #expect(manifest.tasks.count == 100_000)
        #expect(manifest.tasks.last?.deps.map(\.value) == ["t99998"])
        #expect(manifest.tasks.last.map { ManifestTest.at($0.location) } == "100002:3")
    }
}
