@testable import OpsrunKit
import Testing
@testable import OpsrunIncremental

@Suite struct FingerprintTests {
    static let base = TaskDefinitionInput(
        commands: ["mkdir -p build", "cc $CFLAGS -c main.c -o build/main.o"],
        environment: [EnvironmentVariable("CFLAGS", "-O2"), EnvironmentVariable("CC", "cc")],
        directory: ".",
        sources: [FileDigest(path: "src/a.c", digest: .of("a")), FileDigest(path: "src/b.c", digest: .of("b"))],
        prerequisiteOutputs: [PrerequisiteOutputs(task: "gen", outputs: [FileDigest(path: "gen.h", digest: .of("h"))])])

    static let changes: [(String, @Sendable (inout TaskDefinitionInput) -> Void)] = [
        ("command text", { $0.commands[1] = "cc -c main.c -o build/main.o" }),
        ("command order", { $0.commands.reverse() }),
        ("another command", { $0.commands.append("true") }),
        ("an environment value", { $0.environment[0].value = "-O0" }),
        ("an environment name", { $0.environment[1].name = "CXX" }),
        ("another variable", { $0.environment.append(EnvironmentVariable("DEBUG", "1")) }),
        ("the directory", { $0.directory = "sub" }),
        ("a source's content", { $0.sources[0].digest = .of("a2") }),
        ("a source's path", { $0.sources[1].path = "src/c.c" }),
        ("a new source", { $0.sources.append(FileDigest(path: "src/c.c", digest: .of("c"))) }),
        ("a source gone", { $0.sources.removeLast() }),
        ("a prerequisite output's content", { $0.prerequisiteOutputs[0].outputs[0].digest = .of("h2") }),
        ("a prerequisite output's path", { $0.prerequisiteOutputs[0].outputs[0].path = "gen2.h" }),
        ("the prerequisite", { $0.prerequisiteOutputs[0].task = "generate" }),
        ("no prerequisite", { $0.prerequisiteOutputs = [] }),
        ("arguments after --", { $0.arguments = ["-v"] }),
        ("two arguments rather than one", { $0.arguments = ["-v", "x"] }),
        ("one argument rather than two", { $0.arguments = ["-v x"] }),
    ]

    @Test func noArgumentsLeaveTheCommandsDigestAsOnlyTheCommands() {
        // Commands alone (v3: checked with XXH64; v2's and v1's records run once more).
        var hasher = CanonicalHasher(domain: "opsrun commands v3")
        hasher.add(Self.base.commands.count)
        for command in Self.base.commands { hasher.add(command) }
        #expect(Fingerprint(Self.base).commands == hasher.finalizeFast())
        var withArguments = Self.base
        withArguments.arguments = ["-v"]
        #expect(Fingerprint(withArguments).commands != hasher.finalizeFast())
    }

    @Test func everyInputChangesTheFingerprint() {
        let original = Fingerprint(Self.base)
        var seen: Set<ContentDigest> = [original.whole]
        for (what, change) in Self.changes {
            var input = Self.base
            change(&input)
            let changed = Fingerprint(input)
            #expect(changed.whole != original.whole, "changing \(what)")
            #expect(seen.insert(changed.whole).inserted, "changing \(what) collides with another change")
        }
    }

    @Test func partsRememberedFromTaskToTaskNeverStandForOtherValues() {
        let parts = FingerprintParts()
        var inputs: [TaskDefinitionInput] = [Self.base, Self.base]
        for (_, change) in Self.changes {
            var input = Self.base
            change(&input)
            inputs.append(input)
            inputs.append(Self.base)
        }
        for input in inputs {
            let canonical = input.canonical
            #expect(Fingerprint(canonical: canonical, parts: parts) == Fingerprint(canonical: canonical))
        }
    }

    @Test func eachPartChangesOnlyItsOwnDigest() {
        let original = Fingerprint(Self.base)
        var input = Self.base
        input.commands.append("true")
        var changed = Fingerprint(input)
        #expect(changed.commands != original.commands)
        #expect((changed.environment, changed.directory) == (original.environment, original.directory))
        input = Self.base
        input.environment[0].value = "-O0"
        changed = Fingerprint(input)
        #expect(changed.environment != original.environment)
        #expect((changed.commands, changed.directory) == (original.commands, original.directory))
        input = Self.base
        input.directory = "sub"
        changed = Fingerprint(input)
        #expect(changed.directory != original.directory)
        #expect((changed.commands, changed.environment) == (original.commands, original.environment))
        input = Self.base
        input.sources[0].digest = .of("z")
        changed = Fingerprint(input)
        #expect((changed.commands, changed.environment, changed.directory)
            == (original.commands, original.environment, original.directory))
    }

    @Test func orderThatMeansNothingDoesNotChangeIt() {
        var input = Self.base
        input.environment.reverse()
        input.sources.reverse()
        input.prerequisiteOutputs.append(PrerequisiteOutputs(task: "alpha", outputs: []))
        var reordered = input
        reordered.prerequisiteOutputs.reverse()
        #expect(Fingerprint(input) == Fingerprint(reordered))
        var environmentReordered = Self.base
        environmentReordered.environment.reverse()
        environmentReordered.sources.reverse()
        #expect(Fingerprint(environmentReordered) == Fingerprint(Self.base))
        // For a name given twice the last value counts, as in the environment a command gets.
        var twice = Self.base
        twice.environment.insert(EnvironmentVariable("CFLAGS", "-O0"), at: 0)
        #expect(Fingerprint(twice) == Fingerprint(Self.base))
    }

    @Test func theEncodingIsUnambiguous() {
        let split = TaskDefinitionInput(commands: ["ab", "c"])
        let joined = TaskDefinitionInput(commands: ["a", "bc"])
        #expect(Fingerprint(split) != Fingerprint(joined))
        let nameValue = TaskDefinitionInput(commands: [], environment: [EnvironmentVariable("A", "B=C")])
        let shifted = TaskDefinitionInput(commands: [], environment: [EnvironmentVariable("A=B", "C")])
        #expect(Fingerprint(nameValue) != Fingerprint(shifted))
        let source = TaskDefinitionInput(commands: [], sources: [FileDigest(path: "x", digest: .of(""))])
        let prerequisite = TaskDefinitionInput(
            commands: [], prerequisiteOutputs: [PrerequisiteOutputs(task: "x", outputs: [])])
        #expect(Fingerprint(source) != Fingerprint(prerequisite))
    }

    /// A change of encoding must be deliberate: it makes every task of every project run once.
    /// The value was computed independently (Python's hashlib over the documented encoding: strings
    /// and counts as little-endian UInt64 length prefixes, the environment and directory SHA-256'd
    /// under their domain strings, the commands' text, sources and prerequisite outputs inline).
    @Test func theFormatIsPinned() {
        #expect(Fingerprint(Self.base).whole.description
            == "ab28f03d51f2870393964ad7cf78faef084d750e3e9a714c373e02d6afffe8f6")
    }

    @Test func aHundredThousandSourcesAreFingerprintedAndEachCounts() {
        let sources = (0..<100_000).map { FileDigest(path: "src/f\($0).c", digest: .of("\($0)")) }
        let input = TaskDefinitionInput(commands: ["cc"], sources: sources)
        var changed = input
        changed.sources[99_999].digest = .of("changed")
        #expect(Fingerprint(input) != Fingerprint(changed))
        #expect(Fingerprint(input) == Fingerprint(TaskDefinitionInput(commands: ["cc"], sources: sources.reversed())))
    }
}
