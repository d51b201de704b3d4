import Testing

@testable import OpsrunKit
@testable import opsrun

/// The command lines `QuickArguments` reads without ArgumentParser must read exactly as
/// ArgumentParser reads them; everything else it must leave to ArgumentParser.
@Suite struct QuickArgumentsTests {
    static let tokens = [
        "build", "test", "A=1", "B=", "=x", "x=y=z", "1X=y", "A-B=z", "_a=", "help", "-k", "--keep-going", "-B", "--force", "-q",
        "--quiet", "-v", "--verbose", "-j", "2", "-j3", "-j0", "-jx", "-j+2", "-j-1", "--jobs", "-kj2",
        "--jobs=2", "-", "--", "", "-n", "--dry-run", "-l", "--list", "--graph", "-h", "--report",
        "r.json", "-C", "/tmp", "--format", "json", "dot", "text", "yaml", "JSON", "--", "-x", "a b",
    ]

    /// The fields a command line sets, as text, from either parser.
    static func fields(_ invocation: Invocation) -> String {
        "targets \(invocation.targets) taskArguments \(invocation.taskArguments) variables \(invocation.variables.map { "\($0.name)=\($0.value)" })"
            + " jobs \(invocation.jobs) keepGoing \(invocation.keepGoing) force \(invocation.force)"
            + " verbosity \(invocation.verbosity) action \(invocation.action) file \(invocation.manifestFile ?? "-")"
            + " directory \(invocation.directory ?? "-") format \(invocation.format) output \(invocation.outputMode.map { "\($0)" } ?? "-")"
            + " explain \(invocation.explain) grace \(invocation.graceMilliseconds) color \(invocation.color)"
            + " reports \(invocation.reportFiles.map { "\($0.0)=\($0.1)" })"
    }

    /// What ArgumentParser makes of `arguments`, nil if it refuses them.
    static func parsed(_ arguments: [String]) -> String? {
        guard let invocation = try? OpsrunCommand.parseInvocation(arguments) else { return nil }
        return fields(invocation)
    }

    static func check(_ arguments: [String], _ context: String = "") {
        guard let quick = QuickArguments.invocation(arguments) else { return }
        #expect(fields(quick) == parsed(arguments), "\(arguments)\(context)")
    }

    @Test func everyCommandLineOfUpToTwoWordsReadsAsArgumentParserReadsIt() {
        Self.check([])
        for first in Self.tokens {
            Self.check([first])
            for second in Self.tokens { Self.check([first, second]) }
        }
    }

    @Test func longerCommandLinesReadAsArgumentParserReadsThem() {
        var generator = SeededRandom()
        for _ in 0..<1500 {
            let count = Int.random(in: 3...6, using: &generator)
            Self.check((0..<count).map { _ in Self.tokens.randomElement(using: &generator)! }, "; \(SeededRandom.replay)")
        }
    }

    @Test func theCommonCommandLinesAreReadQuickly() {
        for arguments in [["build"], ["-j", "8", "test", "CI=1"], ["-j2", "-k", "-B", "lint", "test"], ["-q"], ["--verbose"], ["-n"], ["--list"], ["--graph", "build"], ["-n", "--format", "json"], ["test", "--", "-v", "-k", "x=1"], ["-n", "test", "--", "-x"], ["--", "x"]] {
            #expect(QuickArguments.invocation(arguments) != nil, "\(arguments)")
        }
    }

    @Test func badValuesAndEverythingElseGoToArgumentParser() {
        for arguments in [["-j"], ["-j", "0"], ["-jx"], ["-q", "-v"], ["-n", "-l"], ["a", "b", "--", "x"], ["-l", "--", "x"], ["--graph", "a", "--", "x"], ["-h"], ["--jobs=2"], ["-kj2"], [""], ["--format", "yaml"], ["--format"], ["--output", "grouped"], ["--format", "json"], ["build", "1X=y"]] {
            #expect(QuickArguments.invocation(arguments) == nil, "\(arguments)")
        }
    }
}
