import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunGraph
@testable import OpsrunManifest
@testable import OpsrunPlan

/// `${NAME}` of a variable that is not set, where opsrun expands it: a warning with its place.
@Suite struct UnsetReferencesTests {
    static func warnings(_ yaml: String, processEnvironment: [String: String] = [:], files: [String] = []) throws -> [String] {
        let scratch = ScratchDirectory()
        for file in files { scratch.write(file, "") }
        let (instances, builder) = try TaskInstancesTests.expand(yaml, in: scratch, processEnvironment: processEnvironment)
        let selection = Array(instances.graph.tasks.indices)
        return UnsetReferences.warnings(selection: selection, builder: builder).map(\.description)
    }

    @Test func aMisspeltVariableInAPathIsWarnedAtItsEntryWithTheNearName() throws {
        #expect(try Self.warnings("""
            tasks:
              compile:
                each: { SRC: "*.c" }
                run: cc -c "$SRC"
                outputs: ["obj/${SCR%.c}.o"]
                depfile: obj/${SRC%.c}.d
            """, files: ["a.c", "b.c"]) == [
            // Once for the task, not once per instance.
            "Tasksfile.yaml:5:15: warning: 'outputs' of task 'compile' uses SCR, which is not set (it expands to nothing); did you mean 'SRC'?",
        ])
    }

    @Test func anEachVariableInTheManifestsEnvSaysWhereItIsSet() throws {
        #expect(try Self.warnings("""
            env:
              OBJ: obj/${SRC%.c}.o
              HOME_BIN: ${HOME}/bin
            tasks:
              compile:
                each: { SRC: [a.c] }
                run: cc -c "$SRC" -o "$OBJ"
            """, processEnvironment: ["HOME": "/home/u"]) == [
            "Tasksfile.yaml:2:3: warning: the value of 'OBJ' in 'env' uses SRC, which is not set (it expands to nothing); "
                + "SRC is an 'each' variable, set only in its task's instances: set OBJ in that task's 'env'",
        ])
    }

    @Test func formsThatSayWhatUnsetMeansAreNotWarnedAbout() throws {
        #expect(try Self.warnings("""
            env:
              CFLAGS: -O2 ${EXTRA:-} ${DEBUG:+-g} ${OPT-}
            tasks:
              build:
                run: make
                dir: ${WORKDIR:-.}
                outputs: ["out/${TARGET:-app}", "out/$${LITERAL}"]
                env: { MODE: "${MODE:-release}" }
            """) == [])
    }

    @Test func aTasksEnvAndDirAreCheckedWithTheTasksOwnVariables() throws {
        #expect(try Self.warnings("""
            tasks:
              deploy:
                run: ./deploy
                env: { TARGET: "${REGION}-prod", OUT: "dist/${TARGET}" }
                dir: ${WORKDIR}
            """) == [
            "Tasksfile.yaml:4:12: warning: the value of 'TARGET' in 'env' of task 'deploy' uses REGION, which is not set (it expands to nothing)",
            "Tasksfile.yaml:5:10: warning: 'dir' of task 'deploy' uses WORKDIR, which is not set (it expands to nothing)",
        ])
    }
}
