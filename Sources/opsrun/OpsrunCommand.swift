import ArgumentParser
import OpsrunKit

#if canImport(Glibc)
    import Glibc
#endif
import OpsrunCore
import OpsrunEngine
import OpsrunManifest
import OpsrunProcess
import OpsrunReport

/// `opsrun [OPTIONS] [TASK ...] [NAME=VALUE ...] [-- ARG ...]`: options in, exit code out. The work is OpsrunKit's.
@main
struct OpsrunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "opsrun",
        abstract: "Run the tasks of a Tasksfile.yaml as a dependency graph.",
        usage: "opsrun [<options>] [<task|NAME=VALUE> ...] [-- <arg> ...]",
        discussion: """
            Runs the named tasks (or the manifest's 'default') after everything they need, as many at \
            once as the bounds allow, each at most once. NAME=VALUE arguments set environment \
            variables for every command. 'opsrun TASK -- ARG...' gives the ARGs to TASK's commands \
            as "$@".

            Exit status: 0 success, 1 a task failed, 2 usage or manifest error, 128+N interrupted \
            by signal N: 129 SIGHUP, 130 SIGINT, 131 SIGQUIT, 143 SIGTERM.
            """,
        // The libyaml it runs on too: it reads every manifest, and a distribution may ship another.
        version: OpsrunVersion.current + " (libyaml " + YAMLDocument.libraryVersion + ")"
    )

    @Argument(help: ArgumentHelp("Tasks to run, and NAME=VALUE variables.", valueName: "task|NAME=VALUE"))
    var arguments: [String] = []

    @Option(name: [.customShort("f", allowingJoined: true), .long], help: ArgumentHelp("Use this manifest instead of searching for Tasksfile.yaml.", valueName: "path"))
    var file: String?

    @Option(name: [.customShort("C", allowingJoined: true), .long], help: ArgumentHelp("Change to this directory first.", valueName: "dir"))
    var directory: String?

    @Option(name: [.customShort("j", allowingJoined: true), .long], help: ArgumentHelp("Run at most N tasks at once (default: the number of processors).", valueName: "N"))
    var jobs: Int?

    @Flag(name: [.customShort("k"), .long], help: "Keep going after a failure: run everything that does not depend on it.")
    var keepGoing = false

    @Flag(name: [.customShort("n"), .long], help: "Print the plan; run nothing.")
    var dryRun = false

    @Flag(name: [.customShort("B"), .long], help: "Run every task, even those that are up to date.")
    var force = false

    @Flag(name: [.customShort("l"), .long], help: "List the tasks with their descriptions.")
    var list = false

    @Flag(help: "Print the dependency graph of the tasks named (all tasks when none).")
    var graph = false

    @Option(help: ArgumentHelp("Format of --list, --dry-run and --graph.", valueName: "format"))
    var format: OutputFormat?

    @Option(help: ArgumentHelp("Task output while running (default: prefixed; grouped under GITHUB_ACTIONS).", valueName: "mode"))
    var output: OutputMode?

    @Flag(help: "Say why each task runs.")
    var explain = false

    @Option(help: ArgumentHelp("Write a JSON record of the run to FILE when it ends.", valueName: "file"))
    var report: String?

    @Option(help: ArgumentHelp("Write a JUnit XML report, one test case per task, to FILE.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Write a Chrome trace of the run (Perfetto, chrome://tracing) to FILE.", valueName: "file"))
    var trace: String?

    @Option(help: ArgumentHelp("Time between SIGTERM and SIGKILL when stopping tasks (e.g. 5s, 500ms).", valueName: "duration"))
    var grace: String = "5s"

    @Option(help: ArgumentHelp("Colour of the output.", valueName: "when"))
    var color: ColorChoice = .auto

    @Flag(name: [.customShort("q"), .long], help: "Print only failures and the summary.")
    var quiet = false

    @Flag(name: [.customShort("v"), .long], help: "Echo each command before it runs.")
    var verbose = false

    @Flag(name: [.customShort("w"), .long], help: "Run, then watch the sources of the tasks named and the manifest; run what is out of date after each change.")
    var watch = false

    @Flag(name: .customLong("init"), help: "Write a commented starter Tasksfile.yaml here (or at -f's path); never overwrites one.")
    var initialize = false

    @Option(help: ArgumentHelp("Print a completion script for a shell.", valueName: "shell"))
    var completions: CompletionShell?

    /// What the completion scripts call: the task and instance names, one a line.
    @Flag(name: .customLong("list-names"), help: ArgumentHelp("Print the task names, one a line (for completion scripts).", visibility: .private))
    var listNames = false

    @Flag(help: "Neither restore from nor store in the output cache (also OPSRUN_NO_CACHE=1).")
    var noCache = false

    @Option(help: ArgumentHelp("The local output cache (default: $OPSRUN_CACHE_DIR, else $XDG_CACHE_HOME/opsrun or ~/.cache/opsrun).", valueName: "dir"))
    var cacheDir: String?

    @Option(help: ArgumentHelp("Keep the local cache under this size, evicting the least recently used (default 5G).", valueName: "size"))
    var cacheSize: String?

    @Option(help: ArgumentHelp("Share outputs through a Bazel HTTP cache (bazel-remote, nginx WebDAV) at URL (also OPSRUN_REMOTE_CACHE).", valueName: "url"))
    var remoteCache: String?

    @Flag(help: "Restore from the remote cache but never write to it.")
    var remoteCacheReadOnly = false

    mutating func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("-j/--jobs must be at least 1, not \(jobs)") }
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
        if [list, graph, dryRun].filter({ $0 }).count > 1 {
            throw ValidationError("choose one of --list, --graph and --dry-run")
        }
        // They print or write something of their own and run nothing: alone (but for -f/-C).
        for (name, given) in [("--init", initialize), ("--completions", completions != nil)] where given {
            let others = [("--list", list), ("--graph", graph), ("--dry-run", dryRun), ("--watch", watch)]
                .filter(\.1).map(\.0) + (arguments.isEmpty ? [] : ["task names"])
            if let other = others.first { throw ValidationError("\(name) cannot be used with \(other)") }
        }
        if initialize && completions != nil { throw ValidationError("--init cannot be used with --completions") }

        if let format, !(list || graph || dryRun) {
            // Otherwise `--format json` alone would run the default task, printing no JSON.
            throw ValidationError("--format \(format.rawValue) applies to --list, --graph and --dry-run; a run has no format")
        }
        if let bad = arguments.first(where: { VariableArgument.split($0).map { !VariableArgument.isValidName($0.name) } ?? false }) {
            throw ValidationError(VariableArgument.invalidNameMessage(bad))
        }
        if watch && (list || graph || dryRun) {
            throw ValidationError("--watch runs tasks; it cannot be used with --list, --graph or --dry-run")
        }
        let reportOptions = [("--report", report), ("--junit", junit), ("--trace", trace)].filter { $0.1 != nil }
        if let (name, _) = reportOptions.first, list || graph || dryRun {
            throw ValidationError("\(name) records a run; it cannot be used with --list, --graph or --dry-run")
        }
        if let (name, _) = reportOptions.first, watch {
            throw ValidationError("\(name) records one run; --watch makes many")
        }

        if let cacheSize, Invocation.cacheSize(cacheSize) == nil {
            throw ValidationError("--cache-size takes a size such as 5G, 500M or a number of bytes, not '\(cacheSize)'")
        }
        if GraceDuration.milliseconds(grace) == nil {
            throw ValidationError("--grace takes a duration such as 5s or 500ms, not '\(grace)'")
        }
    }

    /// The words after `--` are the task's (docs/manual/arguments.md), split off before ArgumentParser reads the
    /// rest: it allows one positional array only, and would mix them with the task names. It
    /// takes the first `--` as the end of its options too, so the split is where it would be.
    static func splitAtTerminator(_ arguments: [String]) -> (options: [String], taskArguments: [String]) {
        guard let terminator = arguments.firstIndex(of: "--") else { return (arguments, []) }
        return (Array(arguments[..<terminator]), Array(arguments[(terminator + 1)...]))
    }

    /// `arguments` (the program's name left out) as ArgumentParser reads them, `-- ARG...` included;
    /// throws what ArgumentParser throws, help and version requests too.
    static func parseInvocation(_ arguments: [String]) throws -> Invocation {
        let (options, taskArguments) = splitAtTerminator(arguments)
        let command = try parse(options)
        if let script = command.completionScript() {
            Terminal.standardOutput.write(script)
            throw ArgumentParser.ExitCode.success
        }
        try command.validate(taskArguments: taskArguments)
        return command.invocation(taskArguments: taskArguments)
    }

    /// Only one task may be named before `--`, and only a run or a plan has commands to give them to.
    func validate(taskArguments: [String]) throws {
        guard !taskArguments.isEmpty else { return }
        if list || graph {
            throw ValidationError("the arguments after '--' are for a task's commands; --list and --graph run none")
        }
        let tasks = arguments.filter { VariableArgument.split($0) == nil }
        if tasks.count > 1 {
            throw ValidationError(
                "only one task may be named before '--', whose commands get the arguments after it; named: \(tasks.joined(separator: ", "))")
        }
    }

    func invocation(taskArguments: [String] = []) -> Invocation {
        var invocation = Invocation()
        for argument in arguments {
            if let variable = VariableArgument.split(argument) {
                invocation.variables.append(variable)
            } else {
                invocation.targets.append(argument)
            }
        }
        invocation.taskArguments = taskArguments
        invocation.manifestFile = file
        invocation.directory = directory
        invocation.jobs = jobs ?? Invocation.processorCount
        invocation.keepGoing = keepGoing
        invocation.force = force
        invocation.action = list ? .list : graph ? .graph : dryRun ? .dryRun : initialize ? .initialize
            : listNames ? .taskNames : .run
        invocation.watch = watch
        invocation.format = format ?? .text
        invocation.outputMode = output
        invocation.explain = explain
        invocation.graceMilliseconds = GraceDuration.milliseconds(grace) ?? 5000
        invocation.color = color
        invocation.verbosity = quiet ? .quiet : verbose ? .verbose : .normal
        invocation.reportFiles = [(.report, report), (.junit, junit), (.trace, trace)].compactMap { kind, path in
            path.map { (kind, $0) }
        }
        invocation.noCache = noCache
        invocation.cacheDirectory = cacheDir
        invocation.cacheSizeLimit = cacheSize.flatMap(Invocation.cacheSize)
        invocation.remoteCache = remoteCache
        invocation.remoteCacheReadOnly = remoteCacheReadOnly
        return invocation
    }

    func run() throws {
        throw ArgumentParser.ExitCode(Self.run(invocation()))
    }

    /// `--completions SHELL` prints the script and nothing else; nil for every other command line.
    func completionScript() -> String? {
        completions.map { CompletionScript.text(for: $0) }
    }

    /// Runs `invocation`. `opsrun help` prints the help when the manifest has no task `help`
    /// (or none can be read): users of go-task, just and git type it, and a task of that name
    /// still wins. Checked only for that exact command line, so other runs pay nothing.
    /// `kept`: the run's large values, never freed: the process exits right after.
    static func run(_ invocation: Invocation, keepingUntilExit kept: KeptUntilExit? = nil) -> Int32 {
        if invocation.action == .run, invocation.targets == ["help"], !Driver.manifestHasTask("help", for: invocation) {
            Terminal.standardOutput.write(helpMessage() + "\n")
            return OpsrunEngine.ExitCode.success.rawValue
        }
        let environment = ProcessEnvironment.current
        return Driver.run(
            invocation, environment: environment, status: Terminal.status(environment: environment),
            host: Terminal.host, keepingUntilExit: kept
        ).rawValue
    }

    /// Usage errors exit 2 (docs/manual/running.md), not ArgumentParser's 64.
    static func main() {
        _ = Terminal.host
        // Never released: `exit` ends the process inside the closure, with the run's values in it.
        let kept = KeptUntilExit()
        if let invocation = QuickArguments.invocation(CommandLine.arguments.dropFirst()) {
            withExtendedLifetime(kept) { Glibc.exit(run(invocation, keepingUntilExit: kept)) }
        }
        do {
            let invocation = try parseInvocation(Array(CommandLine.arguments.dropFirst()))
            withExtendedLifetime(kept) { Glibc.exit(run(invocation, keepingUntilExit: kept)) }
        } catch let exit as ArgumentParser.ExitCode {
            // A run's own exit code: nothing to print (ArgumentParser's exit(withError:) would
            // still build a help generator, a third of a one-task run's CPU time).
            Glibc.exit(exit.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success { Self.exit(withError: error) }
            // ArgumentParser writes "Error:"; every other error of opsrun says "error:", as
            // compilers and make do, and tools match on it.
            var message = fullMessage(for: error)
            if message.hasPrefix("Error:") { message = "error:" + message.dropFirst("Error:".count) }
            if !message.hasPrefix("error:") { message = "error: " + message }
            Terminal.standardError.write(message + "\n")
            Glibc.exit(OpsrunEngine.ExitCode.usage.rawValue)
        }
    }
}

extension OutputFormat: ExpressibleByArgument {}
extension OutputMode: ExpressibleByArgument {}
extension ColorChoice: ExpressibleByArgument {}
extension CompletionShell: ExpressibleByArgument {}
