import OpsrunKit
import OpsrunReport

/// The most common command lines, read without ArgumentParser: task names, `NAME=VALUE`, `-j N`
/// (`-jN`, `--jobs N`), `-k`, `-B`, `-q`, `-v`, one of `-n`, `-l`, `--graph`, `--format F`, and
/// `-- ARG...` after one task.
/// Anything else, a bad value or a conflict included, returns nil and goes to ArgumentParser,
/// which alone reports errors and prints help.
///
/// Why: ArgumentParser builds its whole model of the command by reflection on every start: with
/// today's 30 options, 20 M instructions, half of a no-op of Lua 5.4's 34 files
/// (`Benchmarks/projects.py`, lua: 7.7 → 5.8 ms with this reader, 42 → 22 M instructions;
/// 2 % of a 10,000-task no-op). A test
/// (`QuickArgumentsTests`) checks that every command line this accepts reads the same through
/// ArgumentParser.
enum QuickArguments {
    static func invocation(_ arguments: some Collection<String>) -> Invocation? {
        var invocation = Invocation()
        var jobs: Int?
        var quiet = false
        var verbose = false
        var expectsJobs = false
        var expectsFormat = false
        var formatGiven = false
        var actions: [Invocation.Action] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if expectsJobs {
                guard let count = jobCount(argument[...]) else { return nil }
                jobs = count
                expectsJobs = false
                continue
            }
            if expectsFormat {
                // As ArgumentParser reads a RawRepresentable option.
                guard let format = OutputFormat(rawValue: argument) else { return nil }
                invocation.format = format
                formatGiven = true
                expectsFormat = false
                continue
            }
            switch argument {
            case "--":
                // Everything after it is the task's, options and `=` included (docs/manual/arguments.md).
                invocation.taskArguments = Array(rest)
                rest = rest[rest.endIndex...]
            case "-k", "--keep-going": invocation.keepGoing = true
            case "-B", "--force": invocation.force = true
            case "-q", "--quiet": quiet = true
            case "-v", "--verbose": verbose = true
            case "-j", "--jobs": expectsJobs = true
            case "-n", "--dry-run": actions.append(.dryRun)
            case "-l", "--list": actions.append(.list)
            case "--graph": actions.append(.graph)
            case "--format": expectsFormat = true
            default:
                if argument.hasPrefix("-j") {
                    guard let count = jobCount(argument.dropFirst(2)) else { return nil }
                    jobs = count
                } else if argument.isEmpty || argument.hasPrefix("-") {
                    return nil
                } else if let variable = VariableArgument.split(argument) {
                    // A name no shell can read is a usage error: ArgumentParser's validation says so.
                    guard VariableArgument.isValidName(variable.name) else { return nil }
                    invocation.variables.append(variable)
                } else {
                    invocation.targets.append(argument)
                }
            }
        }
        // A missing value, or a conflict ArgumentParser's validation words: its to report.
        guard !expectsJobs, !expectsFormat, !(quiet && verbose), Set(actions).count <= 1,
            !formatGiven || !actions.isEmpty,
            invocation.taskArguments.isEmpty || (invocation.targets.count <= 1 && actions.allSatisfy { $0 == .dryRun })
        else { return nil }
        invocation.action = actions.first ?? .run
        invocation.jobs = jobs ?? Invocation.processorCount
        invocation.verbosity = quiet ? .quiet : verbose ? .verbose : .normal
        return invocation
    }

    /// A count ArgumentParser reads the same way (`Int.init`) and the command accepts (at least 1).
    private static func jobCount(_ text: Substring) -> Int? {
        guard let count = Int(text), count >= 1 else { return nil }
        return count
    }
}
