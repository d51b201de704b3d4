import Testing

@testable import OpsrunKit

/// Loads inline YAML as `Tasksfile.yaml` in `/project`.
private func load(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Manifest? {
    do {
        return try ManifestLoader.load(text: text, file: "Tasksfile.yaml", directory: "/project")
    } catch {
        Issue.record("unexpected errors: \(error.diagnostics.map(\.description))", sourceLocation: sourceLocation)
        return nil
    }
}

/// The errors loading `text` reports, as printed (first line of each).
private func errors(_ text: String) -> [String] {
    do {
        _ = try ManifestLoader.load(text: text, file: "Tasksfile.yaml", directory: "/project")
        return []
    } catch {
        return error.diagnostics.map(\.description)
    }
}

private func at(_ location: OpsrunKit.SourceLocation) -> String { "\(location.line):\(location.column)" }

@Suite struct ManifestLoaderTests {
    @Test func specExampleLoadsIntoPlainValues() throws {
        let manifest = try #require(load("""
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
        #expect(manifest.queues.map { "\($0.name)=\($0.maxConcurrent)@\(at($0.location))" } == ["net=2@7:3", "link=1@8:3"])
        #expect(manifest.tasks.map(\.name) == ["fetch", "compile", "docs", "lint", "build"])

        let fetch = manifest.tasks[0]
        #expect(at(fetch.location) == "10:3")
        #expect(fetch.description == "Download the sources")
        #expect(fetch.commands.map(\.value) == [#"curl -fsSL "$URL" -o src.tgz"#])
        #expect(fetch.queue?.value == "net")
        #expect(fetch.outputs.map(\.value) == ["src.tgz"])

        let compile = manifest.tasks[1]
        #expect(compile.deps.map { "\($0.value)@\(at($0.location))" } == ["fetch@16:12"])
        #expect(compile.commands.map { "\($0.value)@\(at($0.location))" } == [
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
        #expect(lint.commands.map { "\($0.value)@\(at($0.location))" } == ["swift format lint -r Sources@29:9"])
        #expect(manifest.tasks[4].isGroup)
        #expect(manifest.tasks[4].deps.map(\.value) == ["compile", "docs"])
    }

    @Test func shorthandListIsTheTasksCommandsAndOptionalKeysMayBeEmpty() throws {
        let manifest = try #require(load("""
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
        let manifest = try #require(load("""
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

    @Test func unknownTopLevelKeySuggestsAndXKeysAreFree() {
        #expect(errors("""
            x-anything: [whatever, { a: b }]
            taks:
              a: make
            tasks:
              a: make
            """) == ["Tasksfile.yaml:2:1: error: unknown top-level key 'taks'; did you mean 'tasks'?"])
        #expect(errors("colour: red\ntasks: { a: make }\n") == ["Tasksfile.yaml:1:1: error: unknown top-level key 'colour'"])
    }

    @Test func onlyVersionOneIsKnown() {
        #expect(errors("version: 2\ntasks: { a: make }\n") == ["Tasksfile.yaml:1:10: error: 'version' must be 1, not '2'"])
        #expect(errors("version: [1]\ntasks: { a: make }\n") == ["Tasksfile.yaml:1:10: error: 'version' must be 1, not a list"])
        #expect(errors("version: \"1\"\ntasks: { a: make }\n") == [])
    }

    @Test func defaultMustNameTasks() {
        #expect(errors("""
            default: [biuld, zzz]
            tasks:
              build: make
            """) == [
            "Tasksfile.yaml:1:11: error: unknown task 'biuld' in 'default'; did you mean 'build'?",
            "Tasksfile.yaml:1:18: error: unknown task 'zzz' in 'default'",
        ])
        #expect(errors("default: { a: b }\ntasks: { a: make }\n") == [
            "Tasksfile.yaml:1:10: error: 'default' must be a task name or a list of task names, not a mapping",
        ])
        #expect(errors("default: [[a]]\ntasks: { a: make }\n") == [
            "Tasksfile.yaml:1:11: error: each entry in 'default' must be a task name, not a list",
        ])
    }

    @Test func environmentNeedsValidNamesAndStringValues() {
        #expect(errors("""
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
        #expect(try #require(load("dotenv: .env\ntasks: { a: make }\n")).dotenvFiles.map(\.value) == [".env"])
        #expect(errors("dotenv: { a: b }\ntasks: { a: make }\n") == [
            "Tasksfile.yaml:1:9: error: 'dotenv' must be a file name or a list of file names, not a mapping",
        ])
        #expect(errors("dotenv: [.env, '', {a: b}]\ntasks: { a: make }\n") == [
            "Tasksfile.yaml:1:16: error: an entry in 'dotenv' is empty",
            "Tasksfile.yaml:1:20: error: each entry in 'dotenv' must be a file name, not a mapping",
        ])
    }

    @Test func queuesNeedAPositiveMaximum() {
        #expect(errors("""
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
        #expect(errors("queues: [net]\ntasks: { a: make }\n") == [
            "Tasksfile.yaml:1:9: error: 'queues' must be a mapping of queue names to { max: N }, not a list",
        ])
    }

    @Test func tasksAreRequiredAndNotEmpty() {
        #expect(errors("version: 1\n") == ["Tasksfile.yaml:1:1: error: the manifest has no 'tasks' mapping"])
        #expect(errors("tasks:\n") == ["Tasksfile.yaml:1:1: error: the manifest has no tasks"])
        #expect(errors("tasks: {}\n") == ["Tasksfile.yaml:1:1: error: the manifest has no tasks"])
        #expect(errors("tasks: [a, b]\n") == [
            "Tasksfile.yaml:1:8: error: 'tasks' must be a mapping of task names to tasks, not a list",
        ])
        #expect(errors("# nothing yet\n") == ["Tasksfile.yaml: error: the manifest is empty; it needs a 'tasks' mapping"])
        #expect(errors("- a\n- b\n") == [
            "Tasksfile.yaml:1:1: error: the manifest must be a mapping with a 'tasks' key, not a list",
        ])
    }

    @Test func taskNamesSayWhichCharacterIsWrong() throws {
        #expect(errors("""
            tasks:
              "a b": make
              x=y: make
              -x: make
              "": make
              café: make
            """) == [
            "Tasksfile.yaml:2:3: error: invalid task name 'a b': a space is not allowed; use letters, digits, '_', '-', '.' and ':'",
            "Tasksfile.yaml:3:3: error: invalid task name 'x=y': '=' is not allowed, as it marks a NAME=VALUE argument",
            "Tasksfile.yaml:4:3: error: invalid task name '-x': it cannot begin with '-', which marks an option",
            "Tasksfile.yaml:5:3: error: a task name cannot be empty",
            "Tasksfile.yaml:6:3: error: invalid task name 'café': 'é' is not allowed; use letters, digits, '_', '-', '.' and ':'",
        ])
        let manifest = try #require(load("tasks:\n  ns:build_2.x-y: make\n"))
        #expect(manifest.tasks.map(\.name) == ["ns:build_2.x-y"])
    }

    @Test func unknownTaskKeySuggestsTheNearest() {
        #expect(errors("""
            tasks:
              compile: make
              build:
                dpes: [compile]
                run: make
                colour: red
            """) == [
            "Tasksfile.yaml:4:5: error: unknown key 'dpes' in task 'build'; did you mean 'deps'?",
            "Tasksfile.yaml:6:5: error: unknown key 'colour' in task 'build'",
        ])
    }

    @Test func depsMustNameTasksOnce() {
        #expect(errors("""
            tasks:
              compile: make
              build:
                deps: [complie, compile, compile, nothing, build]
            """) == [
            "Tasksfile.yaml:4:12: error: unknown task 'complie' in deps of 'build'; did you mean 'compile'?",
            "Tasksfile.yaml:4:30: error: duplicate dependency 'compile' in deps of 'build' (first written at line 4, column 21)",
            "Tasksfile.yaml:4:39: error: unknown task 'nothing' in deps of 'build'",
        ])
        #expect(errors("tasks:\n  a: make\n  b:\n    deps: { a: 1 }\n") == [
            "Tasksfile.yaml:4:11: error: 'deps' of task 'b' must be a task name or a list of task names, not a mapping",
        ])
        #expect(errors("tasks:\n  a: make\n  b:\n    deps: [a, [a]]\n") == [
            "Tasksfile.yaml:4:15: error: each entry in 'deps' of task 'b' must be a task name, not a list",
        ])
        #expect(errors("tasks:\n  a: make\n  b:\n    deps: ['']\n") == [
            "Tasksfile.yaml:4:12: error: an entry in 'deps' of task 'b' is empty",
        ])
    }

    @Test func aSingleDependencyMayBeWrittenWithoutAList() throws {
        let manifest = try #require(load("tasks:\n  a: make\n  b:\n    deps: a\n"))
        #expect(manifest.tasks[1].deps.map { "\($0.value)@\(at($0.location))" } == ["a@4:11"])
        #expect(manifest.tasks[1].isGroup)
    }

    @Test func runIsACommandOrAListOfNonEmptyCommands() {
        #expect(errors("""
            tasks:
              a:
                run: { sh: make }
              b:
                run: [make, [x], '', "  "]
              c: ''
              d: [make, { x: y }]
            """) == [
            "Tasksfile.yaml:3:10: error: 'run' of task 'a' must be a command or a list of commands, not a mapping",
            "Tasksfile.yaml:5:17: error: each command of task 'b' must be a string, not a list",
            "Tasksfile.yaml:5:22: error: task 'b' has an empty command",
            "Tasksfile.yaml:5:26: error: task 'b' has an empty command",
            "Tasksfile.yaml:6:6: error: task 'c' has an empty command",
            "Tasksfile.yaml:7:13: error: each command of task 'd' must be a string, not a mapping",
        ])
    }

    @Test func taskWithNeitherRunNorDepsIsAnError() {
        #expect(errors("""
            tasks:
              empty:
              none: ~
              nothing: []
              keys:
                desc: Does nothing
              lists:
                run: []
                deps: []
              blank:
                run:
            """) == [
            "Tasksfile.yaml:2:3: error: task 'empty' has neither 'run' nor 'deps'",
            "Tasksfile.yaml:3:3: error: task 'none' has neither 'run' nor 'deps'",
            "Tasksfile.yaml:4:3: error: task 'nothing' has neither 'run' nor 'deps'",
            "Tasksfile.yaml:5:3: error: task 'keys' has neither 'run' nor 'deps'",
            "Tasksfile.yaml:7:3: error: task 'lists' has neither 'run' nor 'deps'",
            "Tasksfile.yaml:10:3: error: task 'blank' has neither 'run' nor 'deps'",
        ])
    }

    @Test func queueMustBeDeclared() {
        #expect(errors("""
            queues:
              net: { max: 2 }
            tasks:
              a:
                run: curl
                queue: nett
              b:
                run: curl
                queue: disk
            """) == [
            "Tasksfile.yaml:6:12: error: unknown queue 'nett' in task 'a'; did you mean 'net'?",
            "Tasksfile.yaml:9:12: error: unknown queue 'disk' in task 'b'",
        ])
        #expect(errors("tasks:\n  a:\n    run: curl\n    queue: net\n") == [
            "Tasksfile.yaml:4:12: error: unknown queue 'net' in task 'a'; no queues are declared under 'queues'",
        ])
    }

    @Test func priorityAndQualityOfServiceAreNamedValues() throws {
        #expect(errors("""
            tasks:
              a:
                run: make
                priority: hihg
                qos: utilty
              b:
                run: make
                priority: urgent
                qos: bg
              c:
                run: make
                priority: [high]
            """) == [
            "Tasksfile.yaml:4:15: error: unknown priority 'hihg' in task 'a'; did you mean 'high'?",
            "Tasksfile.yaml:5:10: error: unknown qos 'utilty' in task 'a'; did you mean 'utility'?",
            "Tasksfile.yaml:8:15: error: unknown priority 'urgent' in task 'b'; use very-low, low, normal, high or very-high",
            "Tasksfile.yaml:9:10: error: unknown qos 'bg' in task 'b'; use user-interactive, user-initiated, default, utility or background",
            "Tasksfile.yaml:12:15: error: 'priority' of task 'c' must be a priority, not a list",
        ])
        let manifest = try #require(load("""
            tasks:
              a: { run: x, priority: very-low, qos: user-interactive }
              b: { run: x, priority: very-high, qos: user-initiated }
            """))
        #expect(manifest.tasks.map(\.priority) == [.veryLow, .veryHigh])
        #expect(manifest.tasks.map(\.qualityOfService) == [.userInteractive, .userInitiated])
    }

    @Test func timeoutIsAPositiveDuration() throws {
        let manifest = try #require(load("""
            tasks:
              a: { run: x, timeout: 250ms }
              b: { run: x, timeout: 90s }
              c: { run: x, timeout: 1h30m }
              d: { run: x, timeout: 1h2m3s500ms }
              e: { run: x, timeout: 168h }
            """))
        #expect(manifest.tasks.map(\.timeoutMilliseconds) == [250, 90_000, 5_400_000, 3_723_500, 604_800_000])
        #expect(errors("""
            tasks:
              a: { run: x, timeout: 0s }
              b: { run: x, timeout: 10 }
              c: { run: x, timeout: 1.5h }
              d: { run: x, timeout: 5s1m }
              e: { run: x, timeout: 169h }
              f: { run: x, timeout: 99999999999999999999999h }
              g: { run: x, timeout: 1m1m }
            """) == [
            "Tasksfile.yaml:2:25: error: 'timeout' of task 'a' must be longer than zero",
            "Tasksfile.yaml:3:25: error: 'timeout' of task 'b' must be a duration like 90s, 10m or 1h30m, not '10'",
            "Tasksfile.yaml:4:25: error: 'timeout' of task 'c' must be a duration like 90s, 10m or 1h30m, not '1.5h'",
            "Tasksfile.yaml:5:25: error: 'timeout' of task 'd' must be a duration like 90s, 10m or 1h30m, not '5s1m'",
            "Tasksfile.yaml:6:25: error: 'timeout' of task 'e' must be at most 168h (a week), not '169h'",
            "Tasksfile.yaml:7:25: error: 'timeout' of task 'f' must be at most 168h (a week), not '99999999999999999999999h'",
            "Tasksfile.yaml:8:25: error: 'timeout' of task 'g' must be a duration like 90s, 10m or 1h30m, not '1m1m'",
        ])
    }

    @Test func retriesIsASmallWholeNumber() throws {
        #expect(try #require(load("tasks:\n  a: { run: x, retries: 100 }\n")).tasks[0].retries == 100)
        #expect(errors("""
            tasks:
              a: { run: x, retries: -1 }
              b: { run: x, retries: 101 }
              c: { run: x, retries: two }
              d: { run: x, retries: 1.0 }
            """) == [
            "Tasksfile.yaml:2:25: error: 'retries' of task 'a' must be a whole number of 0 or more, not '-1'",
            "Tasksfile.yaml:3:25: error: 'retries' of task 'b' must be at most 100, not '101'",
            "Tasksfile.yaml:4:25: error: 'retries' of task 'c' must be a whole number of 0 or more, not 'two'",
            "Tasksfile.yaml:5:25: error: 'retries' of task 'd' must be a whole number of 0 or more, not '1.0'",
        ])
    }

    @Test func booleansAreOnlyTrueOrFalse() throws {
        #expect(errors("""
            tasks:
              a: { run: x, allow_failure: yes }
              b: { run: x, interactive: on }
              c: { run: x, interactive: True }
              d: { run: x, allow_failure: [true] }
            """) == [
            "Tasksfile.yaml:2:31: error: 'allow_failure' of task 'a' must be true or false, not 'yes'",
            "Tasksfile.yaml:3:29: error: 'interactive' of task 'b' must be true or false, not 'on'",
            "Tasksfile.yaml:4:29: error: 'interactive' of task 'c' must be true or false, not 'True'",
            "Tasksfile.yaml:5:31: error: 'allow_failure' of task 'd' must be true or false, not a list",
        ])
        let manifest = try #require(load("tasks:\n  a: { run: x, interactive: true, allow_failure: false }\n"))
        #expect(manifest.tasks[0].interactive)
        #expect(!manifest.tasks[0].allowFailure)
    }

    @Test func descDirSourcesAndOutputsHaveTheirShapes() {
        #expect(errors("""
            tasks:
              a:
                run: x
                desc: "two\\nlines"
                dir: [a]
                sources: { a: b }
                outputs: [out, [x]]
              b:
                run: x
                desc: [a]
                dir: ''
            """) == [
            "Tasksfile.yaml:4:11: error: 'desc' of task 'a' must be one line",
            "Tasksfile.yaml:5:10: error: 'dir' of task 'a' must be a path, not a list",
            "Tasksfile.yaml:6:14: error: 'sources' of task 'a' must be a path or a list of paths, not a mapping",
            "Tasksfile.yaml:7:20: error: each entry in 'outputs' of task 'a' must be a path, not a list",
            "Tasksfile.yaml:10:11: error: 'desc' of task 'b' must be a string, not a list",
            "Tasksfile.yaml:11:10: error: 'dir' of task 'b' is empty",
        ])
    }

    @Test func everyErrorIsReportedInFileOrder() {
        // 'default' is checked after 'tasks' but written before: the list comes out in file order.
        #expect(errors("""
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
        #expect(errors("default: build\ntasks: [build]\n") == [
            "Tasksfile.yaml:2:8: error: 'tasks' must be a mapping of task names to tasks, not a list",
        ])
        // 'queues' unreadable: queue references are not checked against it.
        #expect(errors("queues: net\ntasks:\n  a: { run: x, queue: net }\n") == [
            "Tasksfile.yaml:1:9: error: 'queues' must be a mapping of queue names to { max: N }, not a string",
        ])
        // A task with a bad name or a bad value still exists for its dependents.
        #expect(errors("tasks:\n  a b: make\n  c: { run: [[x]] }\n  d:\n    deps: [a b, c]\n") == [
            "Tasksfile.yaml:2:3: error: invalid task name 'a b': a space is not allowed; use letters, digits, '_', '-', '.' and ':'",
            "Tasksfile.yaml:3:14: error: each command of task 'c' must be a string, not a list",
        ])
        // A bad queue is still declared for its users.
        #expect(errors("queues:\n  net: { max: 0 }\ntasks:\n  a: { run: x, queue: net }\n") == [
            "Tasksfile.yaml:2:15: error: 'max' of queue 'net' must be a positive integer, not '0'",
        ])
    }

    @Test func yamlErrorsComeThrough() {
        #expect(errors("tasks:\n  a: make\n  a: other\n") == [
            "Tasksfile.yaml:3:3: error: duplicate key 'a' (first written at line 2, column 3)",
        ])
    }

    @Test func aHundredThousandTasksInAChainLoad() throws {
        var text = "default: t99999\ntasks:\n  t0: true\n"
        for i in 1..<100_000 { text += "  t\(i): { deps: [t\(i - 1)], run: 'true' }\n" }
        let manifest = try #require(load(text))
        #expect(manifest.tasks.count == 100_000)
        #expect(manifest.tasks.last?.deps.map(\.value) == ["t99998"])
        #expect(manifest.tasks.last.map { at($0.location) } == "100002:3")
    }
}
