import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunManifest
@testable import OpsrunGraph

/// `each:` as the manifest reads it (docs/manual/each.md): kept as written, every mistake at its place.
@Suite struct EachManifestTests {
    @Test func eachKeepsGlobsAndListsInTheOrderWritten() throws {
        let manifest = try #require(ManifestTest.load("""
            tasks:
              compile:
                each: { SRC: "src/**/*.c" }
                run: cc -c "$SRC"
              test:
                each:
                  OS: [linux, mac]
                  PY: ["3.11", "3.12", 3.10]
                run: tox
            """))
        let compile = try #require(manifest.tasks[0].each)
        #expect(compile.names == ["SRC"])
        #expect(ManifestTest.at(compile.location) == "3:11")
        guard case .glob(let pattern) = compile.variables[0].values else {
            Issue.record("not a glob: \(compile.variables[0].values)")
            return
        }
        #expect(pattern.value == "src/**/*.c" && ManifestTest.at(pattern.location) == "3:18")
        let test = try #require(manifest.tasks[1].each)
        #expect(test.names == ["OS", "PY"])
        #expect(ManifestTest.at(test.variables[1].location) == "8:7")
        // A scalar is taken as written: 3.10 stays "3.10".
        #expect(test.variables[1].values == .list([
            Located("3.11", at: SourceLocation(file: "Tasksfile.yaml", line: 8, column: 12)),
            Located("3.12", at: SourceLocation(file: "Tasksfile.yaml", line: 8, column: 20)),
            Located("3.10", at: SourceLocation(file: "Tasksfile.yaml", line: 8, column: 28)),
        ]))
        #expect(manifest.tasks[1].instance == nil)
    }

    @Test func eachMustBeAMappingOfVariablesToAGlobOrAList() {
        #expect(ManifestTest.errors("""
            tasks:
              a:
                each: [x, y]
                run: echo
              b:
                each: {}
                run: echo
              c:
                each: src/*.c
                run: echo
            """) == [
            "Tasksfile.yaml:3:11: error: 'each' of task 'a' must be a mapping of variable names to a glob or a list of values, not a list",
            "Tasksfile.yaml:6:11: error: 'each' of task 'b' is empty; name at least one variable, as in { SRC: \"src/*.c\" }",
            "Tasksfile.yaml:9:11: error: 'each' of task 'c' must be a mapping of variable names to a glob or a list of values, not a string",
        ])
    }

    @Test func eachVariablesAreVariableNames() {
        #expect(ManifestTest.errors("""
            tasks:
              a:
                each: { my-src: "*.c", 1X: [a], OPSRUN_TASK: [b], ok_1: [c] }
                run: echo
            """) == [
            "Tasksfile.yaml:3:13: error: invalid variable name 'my-src' in 'each' of task 'a'; use letters, digits and '_', not starting with a digit",
            "Tasksfile.yaml:3:28: error: invalid variable name '1X' in 'each' of task 'a'; use letters, digits and '_', not starting with a digit",
            "Tasksfile.yaml:3:37: error: 'OPSRUN_TASK' cannot be a variable of 'each' of task 'a': opsrun sets it to the task's name",
        ])
    }

    @Test func eachValuesAreAGlobOrAListOfNonEmptyStrings() {
        #expect(ManifestTest.errors("""
            tasks:
              a:
                each:
                  NONE:
                  BLANK: "  "
                  MAP: { x: 1 }
                  EMPTY: []
                  NESTED: [x, [y], { z: 1 }]
                  HOLES: [x, "", ~]
                run: echo
            """) == [
            "Tasksfile.yaml:4:12: error: 'NONE' in 'each' of task 'a' is empty; give a glob or a list of values",
            "Tasksfile.yaml:5:14: error: 'BLANK' in 'each' of task 'a' is empty; give a glob or a list of values",
            "Tasksfile.yaml:6:12: error: 'MAP' in 'each' of task 'a' must be a glob or a list of values, not a mapping",
            "Tasksfile.yaml:7:14: error: 'EMPTY' in 'each' of task 'a' is an empty list; give at least one value",
            "Tasksfile.yaml:8:19: error: each value of 'NESTED' in 'each' of task 'a' must be a string, not a list",
            "Tasksfile.yaml:8:24: error: each value of 'NESTED' in 'each' of task 'a' must be a string, not a mapping",
            "Tasksfile.yaml:9:18: error: a value of 'HOLES' in 'each' of task 'a' is empty",
            "Tasksfile.yaml:9:22: error: a value of 'HOLES' in 'each' of task 'a' is empty",
        ])
    }

    @Test func aValueWrittenTwiceIsAnError() {
        #expect(ManifestTest.errors("""
            tasks:
              a:
                each: { PY: ["3.11", "3.12", "3.11"] }
                run: echo
            """) == [
            "Tasksfile.yaml:3:34: error: duplicate value '3.11' of 'PY' in 'each' of task 'a' (first written at line 3, column 18)",
        ])
        // A long list is checked with a dictionary; the message is the same.
        let values = (1...20).map(String.init) + ["7"]
        #expect(ManifestTest.errors("tasks:\n  a:\n    each: { N: [\(values.joined(separator: ", "))] }\n    run: echo\n") == [
            "Tasksfile.yaml:3:88: error: duplicate value '7' of 'N' in 'each' of task 'a' (first written at line 3, column 35)",
        ])
    }

    @Test func eachNeedsCommandsAndKeepsItsVariablesOutOfEnv() {
        #expect(ManifestTest.errors("""
            tasks:
              a: echo a
              b:
                each: { X: [1, 2] }
                deps: [a]
              c:
                each: { SRC: "*.c" }
                env: { SRC: x.c, OTHER: y }
                run: echo
              d:
                each: { X: [1] }
            """) == [
            "Tasksfile.yaml:4:11: error: task 'b' has 'each' but no 'run': each instance runs the task's commands",
            "Tasksfile.yaml:8:12: error: 'SRC' is set by 'each' of task 'c', so it cannot also be in the task's 'env'",
            // Neither 'run' nor 'deps' says it all.
            "Tasksfile.yaml:10:3: error: task 'd' has neither 'run' nor 'deps'",
        ])
    }

    @Test func aMisspeltEachIsSuggested() {
        #expect(ManifestTest.errors("tasks:\n  a:\n    eahc: { X: [1] }\n    run: echo\n") == [
            "Tasksfile.yaml:3:5: error: unknown key 'eahc' in task 'a'; did you mean 'each'?",
        ])
    }

    @Test func eachRoundTripsThroughTheManifestCache() throws {
        var manifest = try #require(ManifestTest.load("""
            tasks:
              compile:
                each: { SRC: "src/**/*.c" }
                run: cc -c "$SRC"
              test:
                each: { OS: [linux, mac], PY: ["3.11"] }
                run: tox
            """))
        // An instance never comes from a manifest, but the codec keeps any value.
        manifest.tasks[1].instance = TaskInstance(task: "test", values: [("OS", "linux"), ("PY", "3.11")])
        let decoded = try #require(ManifestCodec.decode(ManifestCodec.encode(manifest, index: TaskGraph.index(of: manifest.tasks))))
        #expect(decoded.manifest == manifest)
        #expect(decoded.manifest.tasks[1].instance?.name == "test[OS=linux,PY=3.11]")
    }

    @Test func instanceNamesCarryTheirValues() {
        #expect(TaskInstance(task: "compile", values: [("SRC", "src/lib/a.c")]).name == "compile[src/lib/a.c]")
        #expect(TaskInstance(task: "test", values: [("OS", "linux"), ("PY", "3.11")]).name == "test[OS=linux,PY=3.11]")
    }
}
