import Testing

@testable import OpsrunKit

/// The rules for each entry of `tasks:` (docs/manual/manifest.md), every message asserted whole with its place.
@Suite struct TaskValidationTests {
    @Test func taskNamesSayWhichCharacterIsWrong() throws {
        #expect(ManifestTest.errors("""
            tasks:
              "a b": make
              x=y: make
              -x: make
              "": make
              café: make
            """) == [
            "Tasksfile.yaml:2:3: error: invalid task name 'a b': a space is not allowed; use ASCII letters, digits, '_', '-', '.' and ':'",
            "Tasksfile.yaml:3:3: error: invalid task name 'x=y': '=' is not allowed, as it marks a NAME=VALUE argument",
            "Tasksfile.yaml:4:3: error: invalid task name '-x': it cannot begin with '-', which marks an option",
            "Tasksfile.yaml:5:3: error: a task name cannot be empty",
            "Tasksfile.yaml:6:3: error: invalid task name 'café': 'é' is not allowed; use ASCII letters, digits, '_', '-', '.' and ':'",
        ])
        let manifest = try #require(ManifestTest.load("tasks:\n  ns:build_2.x-y: make\n"))
        #expect(manifest.tasks.map(\.name) == ["ns:build_2.x-y"])
    }

    @Test func unknownTaskKeySuggestsTheNearest() {
        #expect(ManifestTest.errors("""
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
        #expect(ManifestTest.errors("""
            tasks:
              compile: make
              build:
                deps: [complie, compile, compile, nothing, build]
            """) == [
            "Tasksfile.yaml:4:12: error: unknown task 'complie' in deps of 'build'; did you mean 'compile'?",
            "Tasksfile.yaml:4:30: error: duplicate dependency 'compile' in deps of 'build' (first written at line 4, column 21)",
            "Tasksfile.yaml:4:39: error: unknown task 'nothing' in deps of 'build'",
        ])
        #expect(ManifestTest.errors("tasks:\n  a: make\n  b:\n    deps: { a: 1 }\n") == [
            "Tasksfile.yaml:4:11: error: 'deps' of task 'b' must be a task name or a list of task names, not a mapping",
        ])
        #expect(ManifestTest.errors("tasks:\n  a: make\n  b:\n    deps: [a, [a]]\n") == [
            "Tasksfile.yaml:4:15: error: each entry in 'deps' of task 'b' must be a task name, not a list",
        ])
        #expect(ManifestTest.errors("tasks:\n  a: make\n  b:\n    deps: ['']\n") == [
            "Tasksfile.yaml:4:12: error: an entry in 'deps' of task 'b' is empty",
        ])
    }

    @Test func aSingleDependencyMayBeWrittenWithoutAList() throws {
        let manifest = try #require(ManifestTest.load("tasks:\n  a: make\n  b:\n    deps: a\n"))
        #expect(manifest.tasks[1].deps.map { "\($0.value)@\(ManifestTest.at($0.location))" } == ["a@4:11"])
        #expect(manifest.tasks[1].isGroup)
    }

    @Test func runIsACommandOrAListOfNonEmptyCommands() {
        #expect(ManifestTest.errors("""
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
        #expect(ManifestTest.errors("""
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
        #expect(ManifestTest.errors("""
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
        #expect(ManifestTest.errors("tasks:\n  a:\n    run: curl\n    queue: net\n") == [
            "Tasksfile.yaml:4:12: error: unknown queue 'net' in task 'a'; no queues are declared under 'queues'",
        ])
    }

    @Test func priorityAndQualityOfServiceAreNamedValues() throws {
        #expect(ManifestTest.errors("""
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
        let manifest = try #require(ManifestTest.load("""
            tasks:
              a: { run: x, priority: very-low, qos: user-interactive }
              b: { run: x, priority: very-high, qos: user-initiated }
            """))
        #expect(manifest.tasks.map(\.priority) == [.veryLow, .veryHigh])
        #expect(manifest.tasks.map(\.qualityOfService) == [.userInteractive, .userInitiated])
    }

    @Test func timeoutIsAPositiveDuration() throws {
        let manifest = try #require(ManifestTest.load("""
            tasks:
              a: { run: x, timeout: 250ms }
              b: { run: x, timeout: 90s }
              c: { run: x, timeout: 1h30m }
              d: { run: x, timeout: 1h2m3s500ms }
              e: { run: x, timeout: 168h }
            """))
        #expect(manifest.tasks.map(\.timeoutMilliseconds) == [250, 90_000, 5_400_000, 3_723_500, 604_800_000])
        #expect(ManifestTest.errors("""
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
        #expect(try #require(ManifestTest.load("tasks:\n  a: { run: x, retries: 100 }\n")).tasks[0].retries == 100)
        #expect(ManifestTest.errors("""
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
        #expect(ManifestTest.errors("""
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
        let manifest = try #require(ManifestTest.load("tasks:\n  a: { run: x, interactive: true, allow_failure: false }\n"))
        #expect(manifest.tasks[0].interactive)
        #expect(!manifest.tasks[0].allowFailure)
    }

    @Test func descDirSourcesAndOutputsHaveTheirShapes() {
        #expect(ManifestTest.errors("""
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

    @Test func depfileIsOnePathOfATaskThatRuns() throws {
        let manifest = try #require(ManifestTest.load("""
            tasks:
              compile: { run: cc -MMD -c a.c, depfile: "build/${NAME}.d" }
            """))
        #expect(manifest.tasks[0].depfile?.value == "build/${NAME}.d")
        #expect(manifest.tasks[0].depfile.map { ManifestTest.at($0.location) } == "2:44")
        #expect(ManifestTest.errors("""
            tasks:
              a: { run: x, depfile: [a.d] }
              b: { run: x, depfile: " " }
              all:
                deps: [a]
                depfile: all.d
              c: { run: x, depfle: c.d }
            """) == [
            "Tasksfile.yaml:2:25: error: 'depfile' of task 'a' must be a path, not a list",
            "Tasksfile.yaml:3:25: error: 'depfile' of task 'b' is empty",
            "Tasksfile.yaml:6:14: error: task 'all' has a 'depfile' but no 'run' to write it",
            "Tasksfile.yaml:7:16: error: unknown key 'depfle' in task 'c'; did you mean 'depfile'?",
        ])
    }
}
