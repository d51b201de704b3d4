import Foundation
import Testing

/// The man pages, docs/opsrun.1 and docs/tasksfile.5, are written by hand (swift-argument-parser's
/// generator gave a "subcommand" synopsis, an mdoc warning and no room for exit statuses or the
/// manifest's keys); these tests keep them from drifting from what they describe: every option of
/// `--help` is in opsrun.1, every key of the manifest's JSON Schema in tasksfile.5, and
/// `man --warnings` has nothing to say about either (docs/manual/fitting-in.md).
@Suite struct ManPageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized
    static let hasMan = FileManager.default.isExecutableFile(atPath: "/usr/bin/man")

    func page(_ name: String) throws -> String {
        try String(contentsOf: Self.repository.appendingPathComponent("docs/" + name), encoding: .utf8)
    }

    /// The page as `man` shows it, and what `man --warnings` says about it.
    static func render(_ path: String) -> (text: String, warnings: String) {
        let result = ExternalCommand.run(
            ["/usr/bin/man", "--warnings", "-E", "UTF-8", "-l", path], in: repository,
            environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "100", "LANG": "C.UTF-8", "MANPAGER": "cat", "PAGER": "cat"])
        #expect(result.status == 0, "man -l \(path): \(result.stderr)")
        return (result.stdout, result.stderr)
    }

    /// The words of `text` that look like options: `-f`, `--file`.
    func optionWords(_ text: String) -> Set<String> {
        Set(text.split(whereSeparator: { " \t\n,|/()'\"[]{}=<>+:.".contains($0) }).map(String.init)
            .filter { $0.wholeMatch(of: /--?[A-Za-z][\w-]*/) != nil })
    }

    /// An option added to the command and not to the page (or one removed from the command but
    /// still on the page) fails here.
    @Test func opsrun1DocumentsEveryOptionOfTheHelpAndNoOther() throws {
        let help = try OpsrunBinary.run(["--help"], in: URL(fileURLWithPath: "/"))
        let options = optionWords(help.stdout.components(separatedBy: "OPTIONS:").last ?? "")
        #expect(options.contains("--file") && options.contains("-C") && options.contains("--remote-cache-read-only"))
        // `.It Fl f , Fl -file Ar path`: the entries of the OPTIONS list.
        let entries = try page("opsrun.1").split(separator: "\n").filter { $0.hasPrefix(".It Fl ") }
        let documented = Set(entries.flatMap { $0.matches(of: /Fl (-?[\w-]+)/).map { "-" + $0.output.1 } })
        #expect(options.subtracting(documented).isEmpty, "missing from docs/opsrun.1: \(options.subtracting(documented).sorted())")
        #expect(documented.subtracting(options).isEmpty, "in docs/opsrun.1 but not in --help: \(documented.subtracting(options).sorted())")
    }

    /// The exit statuses the page lists are the ones `--help` states (docs/manual/running.md).
    @Test(.enabled(if: hasMan, "man is not installed (.ci/run installs man-db)"))
    func opsrun1HasOpsrunsOwnSynopsisAndItsExitStatuses() throws {
        let page = Self.render(Self.repository.appendingPathComponent("docs/opsrun.1").path).text
        let synopsis = page.components(separatedBy: "SYNOPSIS\n").last?.split(separator: "\n").first
        #expect(synopsis?.trimmingCharacters(in: .whitespaces) == "opsrun [OPTIONS] [TASK ...] [NAME=VALUE ...] [-- ARG ...]")
        let section = page.components(separatedBy: "EXIT STATUS\n").last?.components(separatedBy: "\nEXAMPLES").first ?? ""
        let listed = section.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces).prefix { $0.isNumber }) }
        #expect(listed == [0, 1, 2, 129, 130, 131, 143])
        let help = try OpsrunBinary.run(["--help"], in: URL(fileURLWithPath: "/")).stdout
        let stated = help.components(separatedBy: "Exit status:").last?.components(separatedBy: "USAGE:").first ?? ""
        let helpCodes = stated.matches(of: /\b(\d+)[ ]/).compactMap { Int($0.output.1) }
        #expect(helpCodes == [0, 1, 2, 129, 130, 131, 143], "--help states \(helpCodes)")
    }

    static func schema() throws -> Any {
        try JSONSerialization.jsonObject(
            with: Data(contentsOf: repository.appendingPathComponent("docs/tasksfile.schema.json")))
    }

    /// The names of every `properties` anywhere inside a JSON Schema value.
    static func propertyNames(in value: Any) -> Set<String> {
        if let object = value as? [String: Any] {
            let own = Set((object["properties"] as? [String: Any] ?? [:]).keys)
            return object.values.reduce(own) { $0.union(propertyNames(in: $1)) }
        }
        if let array = value as? [Any] { return array.reduce([]) { $0.union(propertyNames(in: $1)) } }
        return []
    }

    /// Every property anywhere in docs/tasksfile.schema.json (top level, a task's, a queue's, an
    /// include's) has an entry `.It Ic KEY` in tasksfile.5, and every entry is a key of the schema.
    @Test func tasksfile5DocumentsEveryKeyOfTheSchemaAndNoOther() throws {
        let keys = Self.propertyNames(in: try Self.schema())
        #expect(keys.isSuperset(of: ["version", "tasks", "includes", "run", "deps", "ready_timeout", "max", "optional"]))
        let entries = try page("tasksfile.5").split(separator: "\n").filter { $0.hasPrefix(".It Ic ") }
        let documented = Set(entries.map { String($0.dropFirst(".It Ic ".count).prefix { $0 != " " }) })
            .subtracting(["x-"])  // `x-anything`: the schema's pattern property
        #expect(keys.subtracting(documented).isEmpty, "missing from docs/tasksfile.5: \(keys.subtracting(documented).sorted())")
        #expect(documented.subtracting(keys).isEmpty, "in docs/tasksfile.5 but not in the schema: \(documented.subtracting(keys).sorted())")
    }

    /// The same, section by section: a key the manifest and a task share (`shell`, `pass_env`,
    /// `env`, `dotenv`) is documented in both places, not only once somewhere.
    @Test func tasksfile5DocumentsEachLevelsKeysInItsOwnSection() throws {
        let schema = try #require(try Self.schema() as? [String: Any])
        let topLevel = Set((schema["properties"] as? [String: Any] ?? [:]).keys)
        let taskKeys = Self.propertyNames(in: try #require((schema["$defs"] as? [String: Any])?["task"]))
        #expect(taskKeys.isSuperset(of: ["run", "deps", "shell", "pass_env"]))
        func entries(inSection name: String) throws -> Set<String> {
            let section = try page("tasksfile.5").components(separatedBy: ".Sh " + name + "\n").dropFirst().first?
                .components(separatedBy: "\n.Sh ").first ?? ""
            return Set(section.split(separator: "\n").filter { $0.hasPrefix(".It Ic ") }
                .map { String($0.dropFirst(".It Ic ".count).prefix { $0 != " " }) })
        }
        let top = try entries(inSection: "TOP-LEVEL KEYS")
        let task = try entries(inSection: "TASK KEYS")
        #expect(topLevel.subtracting(top).isEmpty, "missing from TOP-LEVEL KEYS: \(topLevel.subtracting(top).sorted())")
        #expect(taskKeys.subtracting(task).isEmpty, "missing from TASK KEYS: \(taskKeys.subtracting(task).sorted())")
    }

    @Test(.enabled(if: hasMan, "man is not installed (.ci/run installs man-db)"), arguments: ["opsrun.1", "tasksfile.5"])
    func manWarnsOfNothingInThePage(name: String) throws {
        let (text, warnings) = Self.render(Self.repository.appendingPathComponent("docs/" + name).path)
        #expect(warnings == "")
        #expect(text.contains(name == "opsrun.1" ? "OPSRUN(1)" : "TASKSFILE(5)"))
    }
}
