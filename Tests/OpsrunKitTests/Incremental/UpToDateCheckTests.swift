@testable import OpsrunKit
import Testing
@testable import OpsrunIncremental

@Suite struct UpToDateCheckTests {
    static let input = TaskDefinitionInput(
        commands: ["cc -c src/a.c -o build/x"],
        environment: [EnvironmentVariable("CFLAGS", "-O2")],
        directory: ".",
        sources: [FileDigest(path: "src/a.c", digest: .of("a")), FileDigest(path: "src/old.c", digest: .of("old"))],
        prerequisiteOutputs: [PrerequisiteOutputs(task: "compile", outputs: [FileDigest(path: "build/c.o", digest: .of("o"))])])
    static let outputs = [OutputState(path: "build/x", digest: .of("x"))]
    static let entry = TaskEntry.succeeded(TaskRecord(input: input, outputs: [FileDigest(path: "build/x", digest: .of("x"))]))

    func verdict(
        _ change: (inout TaskDefinitionInput) -> Void = { _ in }, outputs: [OutputState] = outputs,
        entry: TaskEntry? = entry, declaresSources: Bool = true, force: Bool = false
    ) -> String {
        var input = Self.input
        change(&input)
        return UpToDateCheck.verdict(
            for: input, declaresSources: declaresSources, outputs: outputs, entry: entry, force: force).description
    }

    @Test func unchangedIsUpToDate() {
        #expect(verdict() == "up to date")
        #expect(UpToDateCheck.verdict(
            for: Self.input, declaresSources: true, outputs: Self.outputs, entry: Self.entry, force: false).isUpToDate)
    }

    /// Up to date means every part the record was made from is the same: the whole digest is not
    /// consulted, so a record from an older format of it still holds while its parts do.
    @Test func aRecordIsJudgedByItsPartsNotItsWholeDigest() {
        guard case .succeeded(var record) = Self.entry else { Issue.record("no record"); return }
        record.fingerprint.whole = .of("a whole digest of another format")
        #expect(verdict(entry: .succeeded(record)) == "up to date")
        record.fingerprint.commands = .of("other commands")
        #expect(verdict(entry: .succeeded(record)) == "command changed")
    }

    @Test func eachReasonInWords() {
        #expect(verdict(force: true) == "forced (-B)")
        #expect(verdict(entry: nil) == "no record of a previous run")
        #expect(verdict(entry: .unfinished) == "its last run did not succeed")
        #expect(verdict(outputs: [OutputState(path: "build/x", digest: nil)]) == "output build/x missing")
        #expect(verdict(outputs: [OutputState(path: "build/x", digest: .of("edited"))])
            == "output build/x changed since its last run")
        #expect(verdict { $0.commands = ["cc -O3 -c src/a.c -o build/x"] } == "command changed")
        #expect(verdict { $0.arguments = ["-v"] } == "arguments after -- given")
        #expect(verdict { $0.arguments = ["-v"]; $0.commands = ["other"] } == "command or arguments after -- changed")
        #expect(verdict { $0.environment = [EnvironmentVariable("CFLAGS", "-O0")] } == "environment changed")
        // An added variable can be named (`opsrun DEBUG=1`); a changed value cannot: the record
        // keeps a digest of the values, never the values.
        #expect(verdict { $0.environment.append(EnvironmentVariable("DEBUG", "1")) } == "variable DEBUG added to its environment")
        #expect(verdict { $0.environment.insert(EnvironmentVariable("A", ""), at: 0) } == "variable A added to its environment")
        #expect(verdict { $0.directory = "sub" } == "directory changed")
        #expect(verdict { $0.sources[0].digest = .of("a2") } == "source src/a.c changed")
        #expect(verdict { $0.sources.append(FileDigest(path: "src/new.c", digest: .of("n"))) } == "source src/new.c added")
        #expect(verdict { $0.sources.removeLast() } == "source src/old.c removed")
        #expect(verdict { $0.prerequisiteOutputs[0].outputs[0].digest = .of("o2") }
            == "prerequisite compile wrote different outputs")
        #expect(verdict { $0.prerequisiteOutputs.append(PrerequisiteOutputs(task: "gen", outputs: [])) }
            == "prerequisite gen added")
        #expect(verdict { $0.prerequisiteOutputs = [] } == "prerequisite compile removed")
    }

    @Test func withoutSourcesItsOutputsMustExistAndItsDefinitionBeUnchanged() {
        #expect(verdict(outputs: [], entry: nil, declaresSources: false) == "it has no sources")
        #expect(verdict(outputs: [], declaresSources: false) == "it has no sources")
        #expect(verdict(outputs: Self.outputs + [OutputState(path: "build/y", digest: nil)], entry: nil, declaresSources: false)
            == "output build/y missing")
        #expect(verdict(entry: nil, declaresSources: false) == "no record of a previous run")
        #expect(verdict(entry: .unfinished, declaresSources: false) == "its last run did not succeed")
        #expect(verdict(declaresSources: false) == "up to date")
        #expect(verdict({ $0.commands = ["other"] }, declaresSources: false) == "command changed")
        #expect(verdict({ $0.environment = [] }, declaresSources: false) == "environment changed")
        #expect(verdict({ $0.prerequisiteOutputs[0].outputs[0].digest = .of("o2") }, declaresSources: false)
            == "prerequisite compile wrote different outputs")
        // Its outputs count by existence, as make's file targets do: one replaced by hand stays.
        #expect(verdict(outputs: [OutputState(path: "build/x", digest: .of("?"))], declaresSources: false) == "up to date")
        #expect(verdict(declaresSources: false, force: true) == "forced (-B)")
    }

    /// A file an `outputs` glob matched at the last run and deleted since.
    @Test func aRecordedOutputThatIsGoneMakesTheTaskRun() {
        let entry = TaskEntry.succeeded(TaskRecord(input: Self.input, outputs: [
            FileDigest(path: "build/x", digest: .of("x")), FileDigest(path: "build/y", digest: .of("y")),
        ]))
        let both = Self.outputs + [OutputState(path: "build/y", digest: .of("y"))]
        #expect(verdict(outputs: both, entry: entry) == "up to date")
        #expect(verdict(outputs: both.reversed(), entry: entry) == "up to date")
        #expect(verdict(outputs: Self.outputs, entry: entry) == "output build/y missing")
        #expect(verdict(outputs: Self.outputs, entry: entry, declaresSources: false) == "output build/y missing")
    }

    @Test func theMostTellingReasonComesFirst() {
        // No record beats a missing output; a missing output beats a changed command; commands,
        // environment, directory, sources and prerequisites are looked at in that order.
        #expect(verdict(outputs: [OutputState(path: "build/x", digest: nil)], entry: nil) == "no record of a previous run")
        #expect(verdict({ $0.commands = ["x"] }, outputs: [OutputState(path: "build/x", digest: nil)]) == "output build/x missing")
        #expect(verdict { $0.commands = ["x"]; $0.directory = "sub" } == "command changed")
        #expect(verdict { $0.environment = []; $0.sources = [] } == "environment changed")
        #expect(verdict { $0.directory = "sub"; $0.sources = [] } == "directory changed")
        #expect(verdict { $0.sources[1].digest = .of("z"); $0.prerequisiteOutputs = [] } == "source src/old.c changed")
        #expect(verdict({ $0.prerequisiteOutputs = [] }, outputs: [OutputState(path: "build/x", digest: .of("e"))])
            == "prerequisite compile removed")
        // Sources are compared in path order: the first difference is named.
        #expect(verdict { $0.sources = [FileDigest(path: "src/0.c", digest: .of("0"))] + $0.sources } == "source src/0.c added")
        #expect(verdict { $0.sources[0].digest = .of("a2"); $0.sources[1].digest = .of("z") } == "source src/a.c changed")
    }

    /// Early cutoff: the prerequisite ran again, but its outputs hold the same bytes.
    @Test func aPrerequisiteThatWroteIdenticalBytesChangesNothing() {
        #expect(verdict { $0.prerequisiteOutputs = [PrerequisiteOutputs(task: "compile", outputs: [FileDigest(path: "build/c.o", digest: .of("o"))])] }
            == "up to date")
    }

    @Test func orderDoesNotMatter() {
        #expect(verdict { $0.sources.reverse() } == "up to date")
    }

    @Test func aHundredThousandSourcesAreCompared() {
        let sources = (0..<100_000).map { FileDigest(path: "src/f\($0).c", digest: .of("\($0)")) }
        let input = TaskDefinitionInput(commands: ["cc"], sources: sources)
        let entry = TaskEntry.succeeded(TaskRecord(input: input, outputs: []))
        var changed = input
        changed.sources.remove(at: 77_777)
        #expect(UpToDateCheck.verdict(for: input, declaresSources: true, outputs: [], entry: entry, force: false) == .upToDate(.unchanged))
        #expect(UpToDateCheck.verdict(for: changed, declaresSources: true, outputs: [], entry: entry, force: false)
            == .mustRun(.sourceRemoved("src/f77777.c")))
    }
}
