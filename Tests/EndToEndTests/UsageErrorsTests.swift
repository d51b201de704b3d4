import Foundation
import Testing

@testable import opsrun

/// docs/manual/running.md through the real binary: command lines that are refused (exit 2, nothing run),
/// and how every error is worded. Each is tried through both parsers: the quick one that reads the
/// common command lines and ArgumentParser (`--output prefixed` sends a line there).
@Suite struct UsageErrorsTests {
    static let usage = "Usage: opsrun [<options>] [<task|NAME=VALUE> ...] [-- <arg> ...]\n  See 'opsrun --help' for more information.\n"

    static let viaArgumentParser = ["--output", "prefixed"]

    @Test(arguments: [[], viaArgumentParser])
    func formatWithoutListGraphOrDryRunIsAUsageError(extra: [String]) throws {
        let project = try TemporaryProject("default: hello\ntasks:\n  hello: touch ran\n")
        let result = try OpsrunBinary.run(extra + ["--format", "json"], in: project.url)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == "error: --format json applies to --list, --graph and --dry-run; a run has no format\n" + Self.usage)
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
    }

    @Test(arguments: [[], viaArgumentParser], ["1X=y", "=x", "A-B=z"])
    func aVariableWithAnInvalidNameIsAUsageError(extra: [String], argument: String) throws {
        let project = try TemporaryProject("tasks:\n  hello: touch ran\n")
        let result = try OpsrunBinary.run(extra + ["hello", argument], in: project.url)
        #expect(result.status == 2)
        #expect(result.stderr == "error: invalid variable '\(argument)': in NAME=VALUE, NAME is letters, digits and '_', not starting with a digit\n" + Self.usage)
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
    }

    @Test(arguments: [[], viaArgumentParser])
    func onlyOneTaskMayBeNamedBeforeTheArguments(extra: [String]) throws {
        let project = try TemporaryProject("tasks:\n  a: touch ran\n  b: touch ran\n")
        let result = try OpsrunBinary.run(extra + ["a", "X=1", "b", "--", "-v"], in: project.url)
        #expect(result.status == 2)
        #expect(result.stderr == "error: only one task may be named before '--', whose commands get the arguments after it; named: a, b\n" + Self.usage)
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
        let list = try OpsrunBinary.run(extra + ["--list", "--", "-v"], in: project.url)
        #expect(list.status == 2)
        #expect(list.stderr == "error: the arguments after '--' are for a task's commands; --list and --graph run none\n" + Self.usage)
    }

    @Test func variablesWithValidNamesStillRun() throws {
        let project = try TemporaryProject("tasks:\n  hello: echo \"$_a1 $B\" > out\n")
        let result = try project.run("hello", "_a1=x=y", "B=")
        #expect(result.status == 0)
        #expect(try String(contentsOfFile: project.path("out"), encoding: .utf8) == "x=y \n")
    }

    @Test(arguments: [["-q", "-v"], ["--output", "sideways"], ["-C"], ["--no-such-option"], ["-j", "0"]])
    func everyErrorSaysErrorInLowerCase(arguments: [String]) throws {
        let project = try TemporaryProject("tasks:\n  hello: touch ran\n")
        let result = try OpsrunBinary.run(arguments, in: project.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("error: "), "\(result.stderr)")
        #expect(!result.stderr.contains("Error:"))
    }

    @Test(arguments: [[], viaArgumentParser])
    func helpWithoutATaskNamedHelpPrintsTheHelp(extra: [String]) throws {
        let project = try TemporaryProject("tasks:\n  hello: touch ran\n")
        let result = try OpsrunBinary.run(extra + ["help"], in: project.url)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout.hasPrefix("OVERVIEW: Run the tasks of a Tasksfile.yaml as a dependency graph.\n"))
        let nowhere = try OpsrunBinary.run(["help"], in: URL(fileURLWithPath: "/"))
        #expect(nowhere.status == 0)
        #expect(nowhere.stdout.hasPrefix("OVERVIEW: "))
    }

    /// docs/manual/running.md: `--version` prints opsrun's version and the libyaml it runs on, and exits 0, without looking for a
    /// manifest or running anything.
    @Test func versionPrintsTheVersionAndRunsNothing() throws {
        let project = try TemporaryProject("default: hello\ntasks:\n  hello: touch ran\n")
        for directory in [project.url, URL(fileURLWithPath: "/")] {
            let result = try OpsrunBinary.run(["--version"], in: directory)
            #expect(result.status == 0)
            #expect(result.stdout == OpsrunCommand.configuration.version + "\n")
            #expect(result.stdout.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+ \(libyaml [0-9]+\.[0-9]+\.[0-9]+\)\n/) != nil, "\(result.stdout)")
            #expect(result.stderr == "")
        }
        #expect(!FileManager.default.fileExists(atPath: project.path("ran")))
    }

    @Test func aTaskNamedHelpStillRuns() throws {
        let project = try TemporaryProject("tasks:\n  help: echo our own help\n")
        let result = try project.run("help")
        #expect(result.status == 0)
        #expect(result.stdout.contains("help | our own help\n"))
        #expect(!result.stdout.contains("OVERVIEW"))
    }
}
