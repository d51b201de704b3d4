import Testing

@testable import OpsrunKit
@testable import OpsrunCore
@testable import OpsrunManifest

/// docs/manual/variables.md: a `${...}` the manifest cannot expand is an error at its own place, whatever the
/// scalar's style; `requires` and keys other tools use.
@Suite struct ExpansionCheckTests {
    @Test func anUnsupportedFormIsReportedAtItsDollarBraceInEveryStyle() {
        let errors = ManifestTest.errors("""
            env:
              PLAIN: a ${X/a/b}
              SINGLE: 'it''s ${X:0:1}'
              DOUBLE: "tab\\t then ${!X}"
              BLOCK: |
                first ${X}
                second ${#X}
            tasks:
              t:
                dir: ${X:=d}
                sources: [ok, "${X%.c}", "${1}"]
                outputs:
                  - "${X?m}"
                env: { A: "${X" }
                run: true
            """)
        #expect(errors.map { $0.components(separatedBy: ": error:")[0] } == [
            "Tasksfile.yaml:2:12",
            // `''` and `\\t` before the reference: found in the source all the same.
            "Tasksfile.yaml:3:18",
            "Tasksfile.yaml:4:23",
            "Tasksfile.yaml:7:12",
            "Tasksfile.yaml:10:10",
            "Tasksfile.yaml:11:31",
            "Tasksfile.yaml:13:10",
            "Tasksfile.yaml:14:16",
        ])
        #expect(errors[4].hasSuffix("error: unsupported expansion '${X:=d}' in 'dir' of task 't': assigning a default is not supported (use ${X:-default}); \(Interpolation.forms)"))
        #expect(errors[7] == "Tasksfile.yaml:14:16: error: unclosed '${' in the value of 'A' in 'env' of task 't': '${X' has no '}'; write $$ for a literal $")
    }

    @Test func aDepfileIsCheckedAsOutputsAre() throws {
        let errors = ManifestTest.errors("tasks:\n  t: { run: true, depfile: \"build/${SRC/.c/.d}\" }\n")
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("Tasksfile.yaml:2:35: error: unsupported expansion '${SRC/.c/.d}' in 'depfile' of task 't'") == true, "\(errors)")
        let manifest = try #require(ManifestTest.load("tasks:\n  t: { run: true, depfile: \"build/${SRC%.c}.d\" }\n"))
        #expect(manifest.tasks[0].depfile?.value == "build/${SRC%.c}.d")
    }

    @Test func aReferenceWrittenWithAnEscapeIsReportedAtItsValue() {
        // `\x24` is `$`: the reference is not in the source as written, so the value's place it is.
        #expect(ManifestTest.errors("tasks:\n  t: { dir: \"\\x24{X/a}\", run: true }\n") == [
            "Tasksfile.yaml:2:13: error: unsupported expansion '${X/a}' in 'dir' of task 't': pattern substitution (${NAME/pattern/string}) is not supported; \(Interpolation.forms)",
        ])
    }

    @Test func theFormsAndEscapedDollarsLoad() throws {
        let manifest = try #require(ManifestTest.load("""
            env: { A: "${B:-x}${C-y}${D:+z}${E+w}${F#p}${G##p}${H%p}${I%%p}${J:?m}$${K/a}" }
            tasks:
              t: { run: true, outputs: ["build/${SRC%.c}.o"] }
            """))
        #expect(manifest.tasks[0].outputs[0].value == "build/${SRC%.c}.o")
    }

    @Test func requiresIsAListOfVariableNames() throws {
        let manifest = try #require(ManifestTest.load("tasks:\n  deploy: { run: true, requires: [TOKEN, REGION] }\n  one: { run: true, requires: TOKEN }\n"))
        #expect(manifest.tasks[0].requires.map(\.value) == ["TOKEN", "REGION"])
        #expect(ManifestTest.at(manifest.tasks[0].requires[1].location) == "2:42")
        #expect(manifest.tasks[1].requires.map(\.value) == ["TOKEN"])
        #expect(ManifestTest.errors("""
            tasks:
              a: { run: true, requires: [1X, "A B", ok] }
              b: { run: true, requires: { vars: [A] } }
              c: { run: true, requires: [[A]] }
            """) == [
            "Tasksfile.yaml:2:30: error: invalid variable name '1X' in 'requires' of task 'a'; use letters, digits and '_', not starting with a digit",
            "Tasksfile.yaml:2:34: error: invalid variable name 'A B' in 'requires' of task 'a'; use letters, digits and '_', not starting with a digit",
            "Tasksfile.yaml:3:29: error: 'requires' of task 'b' must be a variable name or a list of variable names, not a mapping (write requires: [A, B])",
            "Tasksfile.yaml:4:30: error: each entry in 'requires' of task 'c' must be a variable name, not a list",
        ])
    }

    @Test func keysOtherToolsUseSuggestOursEvenWhenFarApart() {
        let borrowed = ["cmds": "run", "depends": "deps", "needs": "deps", "generates": "outputs", "vars": "env",
                        "working-directory": "dir", "retry": "retries", "ignore_error": "allow_failure", "pool": "queue"]
        for (key, ours) in borrowed.sorted(by: { $0.key < $1.key }) {
            #expect(ManifestTest.errors("tasks:\n  t:\n    run: true\n    \(key): x\n") == [
                "Tasksfile.yaml:4:5: error: unknown key '\(key)' in task 't'; did you mean '\(ours)'?",
            ])
        }
        #expect(ManifestTest.errors("vars: {}\ntasks: { t: true }\n") == [
            "Tasksfile.yaml:1:1: error: unknown top-level key 'vars'; did you mean 'env'?",
        ])
        // Edit distance still finds near misspellings of the new key.
        #expect(ManifestTest.errors("tasks:\n  t: { run: true, requries: [A] }\n") == [
            "Tasksfile.yaml:2:19: error: unknown key 'requries' in task 't'; did you mean 'requires'?",
        ])
    }

    /// `$NAME` without braces in a path is found; `$$`, `${...}` (with a word inside) and a `$`
    /// before anything but a name are not.
    @Test func aNameWithoutBracesIsFoundOnlyOutsideReferencesAndEscapes() {
        #expect(ManifestChecker.bareReference(in: "build/$SRC.o") == "SRC")
        #expect(ManifestChecker.bareReference(in: "$_x1/y") == "_x1")
        #expect(ManifestChecker.bareReference(in: "${A:-${B}}/$C") == "C")
        #expect(ManifestChecker.bareReference(in: "price$$list") == nil)
        #expect(ManifestChecker.bareReference(in: "${SRC%.c}.o") == nil)
        #expect(ManifestChecker.bareReference(in: "a$1 b$ c$-") == nil)
        #expect(ManifestChecker.bareReference(in: "ends with $") == nil)
    }
}
