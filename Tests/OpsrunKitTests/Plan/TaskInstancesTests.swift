import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunEngine
@testable import OpsrunManifest
@testable import OpsrunGraph
@testable import OpsrunIncremental
@testable import OpsrunPlan

/// `each` expanded into instances when a run starts (docs/manual/each.md): names, order, edges, variables.
@Suite struct TaskInstancesTests {
    /// A project of `yaml` in `scratch`, expanded with `processEnvironment` and `overrides`.
    static func expand(
        _ yaml: String, in scratch: ScratchDirectory = ScratchDirectory(),
        processEnvironment: [String: String] = [:], overrides: [(name: String, value: String)] = []
    ) throws(ProjectError) -> (instances: TaskInstances, builder: OperationBuilder) {
        scratch.write("Tasksfile.yaml", yaml)
        let project = try Project.load(explicitFile: nil, workingDirectory: scratch.path)
        let environment = EnvironmentBuilder(
            processEnvironment: processEnvironment, dotenv: [], manifestEnvironment: project.manifest.environment,
            overrides: overrides)
        let instances = try TaskInstances(project: project, environment: environment)
        return (instances, OperationBuilder(graph: instances.graph, manifest: project.manifest, environment: environment))
    }

    /// The errors of expanding `yaml`: of the whole manifest, or else of its tasks whose values
    /// could not be made.
    static func errors(_ yaml: String, in scratch: ScratchDirectory = ScratchDirectory()) -> [String] {
        do {
            return try expand(yaml, in: scratch).instances.failures.map(\.diagnostic.description)
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    /// The messages for a run naming `names`; none when every name is known.
    static func unknownNames(_ names: [String], in instances: TaskInstances) -> [String] {
        do {
            _ = try instances.roots(named: names)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    static func prerequisites(_ graph: TaskGraph, _ name: String) -> [String] {
        graph.prerequisites[graph.index[name]!].map { graph.names[$0] }
    }

    @Test func aMatrixIsEveryCombinationTheLastVariableFastest() throws {
        let (instances, _) = try Self.expand("""
            tasks:
              setup: echo setup
              test:
                each: { OS: [linux, mac], PY: ["3.11", "3.12"] }
                deps: [setup]
                run: echo "$OS $PY"
              all:
                deps: [test]
            """)
        let graph = instances.graph
        #expect(graph.names == [
            "setup", "test", "test[OS=linux,PY=3.11]", "test[OS=linux,PY=3.12]", "test[OS=mac,PY=3.11]",
            "test[OS=mac,PY=3.12]", "all",
        ])
        // The task is a group of its instances; a dependent needs the task, so every instance.
        #expect(Self.prerequisites(graph, "test") == Array(graph.names[2...5]))
        #expect(Self.prerequisites(graph, "all") == ["test"])
        #expect(Self.prerequisites(graph, "test[OS=mac,PY=3.11]") == ["setup"])
        #expect(graph.tasks[1].isGroup && graph.tasks[1].each != nil)
        #expect(graph.tasks[4].instance == TaskInstance(task: "test", values: [("OS", "mac"), ("PY", "3.11")]))
        #expect(graph.tasks[4].commands.map(\.value) == ["echo \"$OS $PY\""])
        #expect(instances.instanceCounts == [nil, 4, nil])
        #expect(CycleFinder.cycles(in: graph).isEmpty)
    }

    @Test func aGlobIsExpandedRelativeToDirInSortedOrder() throws {
        let scratch = ScratchDirectory()
        for file in ["code/src/b.c", "code/src/a.c", "code/src/lib/z.c", "code/src/lib/readme.md", "code/src/.hidden.c"] {
            scratch.write(file, "")
        }
        let (instances, _) = try Self.expand("""
            env: { SUB: code }
            tasks:
              compile:
                dir: ${SUB}
                each: { SRC: "src/**/*.c" }
                run: cc -c "$SRC"
            """, in: scratch)
        #expect(instances.graph.names == ["compile", "compile[src/a.c]", "compile[src/b.c]", "compile[src/lib/z.c]"])
        #expect(instances.instanceCounts == [3])
        #expect(instances.empty.isEmpty)
    }

    @Test func aGlobThatMatchesNothingLeavesAGroupOfTheTasksDeps() throws {
        let (instances, _) = try Self.expand("""
            tasks:
              gen: echo gen
              compile:
                each: { SRC: "src/*.c", MODE: [debug, release] }
                deps: [gen]
                run: cc -c "$SRC"
              link:
                deps: [compile]
                run: echo link
            """)
        let graph = instances.graph
        #expect(graph.names == ["gen", "compile", "link"])
        #expect(Self.prerequisites(graph, "compile") == ["gen"])
        #expect(graph.tasks[1].isGroup)
        #expect(instances.instanceCounts == [nil, 0, nil])
        #expect(instances.empty.map(\.task) == [1])
        #expect(instances.empty.map(\.reason) == ["'src/*.c' matches no file"])
    }

    @Test func listValuesExpandVariables() throws {
        let (instances, _) = try Self.expand("""
            env: { V: "3" }
            tasks:
              test:
                each: { PY: ["${V}.11", "${V}.12"] }
                run: echo
            """)
        #expect(instances.graph.names == ["test", "test[3.11]", "test[3.12]"])
    }

    @Test func aStringWithoutWildcardsThatNamesNoFileIsAnErrorNotZeroInstances() throws {
        let scratch = ScratchDirectory()
        scratch.write("main.c", "")
        #expect(Self.errors("""
            tasks:
              test:
                each: { OS: [linux, mac], PY: "3.11" }
                run: echo
            """, in: scratch) == [
            "Tasksfile.yaml:3:35: error: 'PY' in 'each' of task 'test': '3.11' has no wildcards and names no file; "
                + "a string is a glob, a list gives values (PY: [3.11])",
        ])
        // One that names a file is that file.
        #expect(try Self.expand("tasks:\n  t:\n    each: { F: main.c }\n    run: echo\n", in: scratch)
            .instances.graph.names == ["t", "t[main.c]"])
    }

    /// An `each` over nothing gives no instance: an empty value is no value.
    @Test func aValueThatIsEmptyOnceExpandedIsNoValue() throws {
        let dropped = try Self.expand("tasks:\n  g:\n    each: { F: [a, \"${NOPE}\"] }\n    run: echo\n").instances
        #expect(dropped.graph.names == ["g", "g[a]"])
        #expect(dropped.failures.isEmpty)
        let none = try Self.expand("""
            tasks:
              g:
                each: { F: "${NOPE:+x.c}" }
                run: echo
              h:
                each: { F: ["${NOPE}", "${NOPE:+y}"], G: [a] }
                run: echo
            """).instances
        #expect(none.graph.names == ["g", "h"])
        #expect(none.empty.map(\.reason) == [
            "'${NOPE:+x.c}' is empty once expanded",
            "every value of 'F' is empty once expanded ('${NOPE}', '${NOPE:+y}')",
        ])
    }

    @Test func aValueWithAControlCharacterIsAnError() {
        #expect(Self.errors("""
            tasks:
              g:
                each: { F: [a, "b\\tc"] }
                run: echo
            """) == [
            "Tasksfile.yaml:3:20: error: 'F' in 'each' of task 'g' has a value with a control character "
                + "(a newline or tab would break the lines its instance's name is in)",
        ])
    }

    @Test func aTaskWhoseValuesFailedHasNoInstancesAndTheOthersAreExpanded() throws {
        let (instances, _) = try Self.expand("""
            tasks:
              g:
                each: { SRC: "${SRCDIR:?set SRCDIR}/*.c" }
                run: echo
              h:
                each: { X: [a] }
                run: echo
            """)
        #expect(instances.graph.names == ["g", "h", "h[a]"])
        #expect(instances.failures.map(\.task) == [0])
        #expect(instances.empty.isEmpty)
    }

    @Test func instancesThatWouldShareANameAreAnError() {
        #expect(Self.errors("""
            tasks:
              t:
                each: { A: ["x,B=y", x], B: ["y,B=y", y] }
                run: echo
            """) == [
            "Tasksfile.yaml:3:11: error: task 't' has two instances named 't[A=x,B=y,B=y]'; give its 'each' values that differ",
        ])
    }

    @Test func tooManyInstancesIsAnErrorNotAnExhaustedMachine() {
        let thousand = "[" + (1...1000).map(String.init).joined(separator: ", ") + "]"
        #expect(Self.errors("""
            tasks:
              t:
                each: { A: \(thousand), B: \(thousand), C: [x, y] }
                run: echo
            """) == [
            "Tasksfile.yaml:3:11: error: task 't' would have more than 1000000 instances; 'each' allows at most that many",
        ])
    }

    @Test func aRunStartsFromATaskOrFromOneInstance() throws {
        let (instances, _) = try Self.expand("""
            default: t
            tasks:
              t:
                each: { A: [x, y] }
                run: echo
            """)
        let graph = instances.graph
        #expect(try instances.roots(named: []).map { graph.names[$0] } == ["t"])
        #expect(try instances.roots(named: ["t[y]", "t"]).map { graph.names[$0] } == ["t[y]", "t"])
        #expect(graph.closure(of: try instances.roots(named: ["t"])).map { graph.names[$0] } == ["t", "t[x]", "t[y]"])
        do {
            _ = try instances.roots(named: ["t[z]", "tt"])
            Issue.record("unknown names were accepted")
        } catch {
            #expect(error.diagnostics.map(\.description) == [
                "error: unknown task 't[z]': no instance of 't' has that name; did you mean 't[x]'?",
                "error: unknown task 'tt' (not in Tasksfile.yaml); did you mean 't'?",
            ])
        }
    }

    @Test func anInstanceNamedWithItsValuesInAnotherOrderIsSuggested() throws {
        let (instances, _) = try Self.expand("""
            tasks:
              test:
                each: { OS: [linux, mac], PY: ["3.11", "3.12"] }
                run: echo
            """)
        #expect(Self.unknownNames(["test[PY=3.12,OS=mac]"], in: instances) == [
            "error: unknown task 'test[PY=3.12,OS=mac]': no instance of 'test' has that name; did you mean 'test[OS=mac,PY=3.12]'?",
        ])
    }

    @Test func aMatrixInstanceNamedInPartOrWithAnUnknownValueSaysWhatItCouldBe() throws {
        let (instances, _) = try Self.expand("""
            tasks:
              test:
                each: { OS: [linux, mac], PY: ["3.11", "3.12"] }
                run: echo
            """)
        func message(_ name: String) -> String? { Self.unknownNames([name], in: instances).first }
        let prefix = "no instance of 'test' has that name; "
        #expect(message("test[OS=linux]") == "error: unknown task 'test[OS=linux]': \(prefix)name every key: 'test[OS=linux,PY=3.11]', 'test[OS=linux,PY=3.12]'")
        #expect(message("test[OS=win,PY=3.11]") == "error: unknown task 'test[OS=win,PY=3.11]': \(prefix)OS is one of linux, mac")
        #expect(message("test[ARCH=arm]") == "error: unknown task 'test[ARCH=arm]': \(prefix)its keys are OS, PY")
    }

    @Test func anIncludedTasksInstanceNamedWithoutItsNamespaceSuggestsTheFullName() throws {
        let scratch = ScratchDirectory()
        scratch.write("lua/lapi.c", "")
        scratch.write("lua/Tasksfile.yaml", "tasks:\n  compile:\n    each: { SRC: \"*.c\" }\n    run: echo\n")
        let (instances, _) = try Self.expand("includes: { lua: lua }\ntasks:\n  all: echo\n", in: scratch)
        #expect(Self.unknownNames(["compile[lapi.c]"], in: instances) == [
            "error: unknown task 'compile[lapi.c]' (not in Tasksfile.yaml); did you mean 'lua:compile[lapi.c]'?",
        ])
    }

    @Test func anInstanceSeesItsValueInEnvironmentPathsAndDefinition() throws {
        let scratch = ScratchDirectory()
        scratch.write("src/a.c", "")
        let (instances, builder) = try Self.expand("""
            env: { CFLAGS: -O2 }
            tasks:
              compile:
                each: { SRC: "src/*.c" }
                run: cc $CFLAGS -c "$SRC"
                sources: ["${SRC}"]
                outputs: ["build/${SRC}.o", "build/*.d"]
              tagged:
                each: { TAG: [v1] }
                env: { LABEL: "release-${TAG}" }
                dir: out/${TAG}
                run: echo "$LABEL"
            """, in: scratch, processEnvironment: ["SRC": "inherited", "PATH": "/bin"], overrides: [("SRC", "override")])
        let graph = instances.graph
        let selection = Array(0..<graph.count)
        let incremental = builder.incrementalSpecs(for: selection)
        let (specs, _) = builder.operations(for: selection, incremental: incremental)
        let compile = graph.index["compile[src/a.c]"]!
        #expect(incremental[compile].sources == ["src/a.c"])
        #expect(incremental[compile].outputs == ["build/src/a.c.o", "build/*.d"])
        #expect(incremental[compile].environment.map { "\($0.name)=\($0.value)" } == ["CFLAGS=-O2", "SRC=src/a.c"])
        // A NAME=VALUE argument cannot change which file an instance is about; an inherited SRC
        // is replaced, not doubled.
        let environment = specs[compile].job.environment
        #expect(environment.filter { $0.hasPrefix("SRC=") } == ["SRC=src/a.c"])
        #expect(environment.contains("OPSRUN_TASK=compile[src/a.c]") && environment.contains("PATH=/bin"))
        // Parents of literal outputs only; a glob names none.
        #expect(Directories.parents(ofOutputs: specs[compile].job.outputs, in: specs[compile].job.workingDirectory) == [scratch.path + "/build/src"])
        let tagged = graph.index["tagged[v1]"]!
        #expect(specs[tagged].job.environment.contains("LABEL=release-v1"))
        #expect(specs[tagged].job.workingDirectory == scratch.path + "/out/v1")
        #expect(incremental[tagged].directory == "out/v1")
        // The task itself is a group: no commands, no paths of its own.
        let group = graph.index["compile"]!
        #expect(specs[group].isGroup && incremental[group].sources.isEmpty && incremental[group].outputs.isEmpty)
    }

    @Test func instancesShareTheirTasksVariablesUnlessTheirEnvNeedsTheirOwn() throws {
        let (instances, builder) = try Self.expand("""
            env: { BASE: b }
            tasks:
              shared:
                each: { N: ["1", "2"] }
                env: { FIXED: "${BASE}-x" }
                run: echo
                outputs: ["out/${N}/${FIXED}/${OPSRUN_TASK}"]
              own:
                each: { N: ["1", "2"] }
                env: { PER: "n${N}" }
                run: echo
                outputs: ["out/${PER}"]
            """)
        let graph = instances.graph
        let incremental = builder.incrementalSpecs(for: Array(0..<graph.count))
        #expect(incremental[graph.index["shared[2]"]!].outputs == ["out/2/b-x/shared[2]"])
        #expect(incremental[graph.index["own[1]"]!].outputs == ["out/n1"])
        #expect(incremental[graph.index["own[2]"]!].outputs == ["out/n2"])
    }

    @Test func outputDirectoriesAreTheParentsOfLiteralOutputsOnce() {
        let spec = IncrementalTaskSpec(
            name: "t", commands: ["x"], absoluteDirectory: "/p",
            outputs: ["app", "build/a.o", "build/b.o", "./gen//x/y.h", "dist/*.tgz", "/abs/out/f", "esc\\*/f"])
        #expect(spec.outputDirectories == ["/p/build", "/p/gen/x", "/abs/out"])
    }
}
