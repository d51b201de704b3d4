import Foundation
import Testing

/// docs/manual/fitting-in.md: `opsrun --completions bash|zsh|fish`, each script used by its real shell.
@Suite struct CompletionTests {
    static let manifest = """
        default: build
        tasks:
          build: echo b
          web:build: echo w
          web:test: echo t
          compile:
            each: { SRC: [a.c, b.c] }
            run: echo "$SRC"

        """

    /// A project with a root manifest of one task and the interesting one in `sub/`.
    func project() throws -> TemporaryProject {
        try TemporaryProject("tasks:\n  rootonly: echo r\n", files: ["sub/Tasksfile.yaml": Self.manifest, "sub/ci.yaml": Self.manifest])
    }

    /// What bash's completion offers for `line` (the cursor at its end) in `project`: the script
    /// sourced into a real bash, `COMP_*` set as bash sets them, `COMPREPLY` printed one a line.
    func bashCompletes(_ line: String, in project: TemporaryProject) throws -> [String] {
        let script = """
            bin=$1; PATH="${bin%/*}:$PATH"
            eval "$("$bin" --completions bash)" || exit 9
            COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$COMP_LINE"; COMP_CWORD=${#COMP_WORDS[@]}
            _opsrun opsrun "" opsrun
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = OpsrunBinary.run(launcher: ["/bin/bash", "--norc", "-c", script, "bash"], [line], in: project.url)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesTaskNamesOfTheManifestTheLineNames() throws {
        let project = try project()
        #expect(try bashCompletes("opsrun ", in: project) == ["rootonly"])
        #expect(try bashCompletes("opsrun -C sub ", in: project) == ["build", "web:build", "web:test", "compile", "compile[a.c]", "compile[b.c]"])
        #expect(try bashCompletes("opsrun -Csub w", in: project) == ["web:build", "web:test"])
        #expect(try bashCompletes("opsrun -f sub/ci.yaml -j 2 comp", in: project) == ["compile", "compile[a.c]", "compile[b.c]"])
        // Bash splits the word at ':' and '=': it replaces only what follows, so that is what is offered.
        #expect(try bashCompletes("opsrun -C sub web:t", in: project) == ["test"])
        #expect(try bashCompletes("opsrun -C sub compile[b", in: project) == ["compile[b.c]"])
    }

    @Test func bashCompletesIncludedTasksAndANamespaceWithADefault() throws {
        let project = try TemporaryProject(
            "includes:\n  app: app\n  lib: lib\ntasks:\n  all: { deps: [app:build] }\n",
            files: ["app/Tasksfile.yaml": "default: build\ntasks:\n  build: echo a\n", "lib/Tasksfile.yaml": "tasks:\n  test: echo l\n"])
        #expect(try bashCompletes("opsrun a", in: project) == ["all", "app:build", "app"])
        // lib has no default: `opsrun lib` would be an error, so it is not offered.
        #expect(try bashCompletes("opsrun l", in: project) == ["lib:test"])
    }

    @Test func bashCompletesOptionsValuesAndPaths() throws {
        let project = try project()
        #expect(try bashCompletes("opsrun --li", in: project) == ["--list"])
        #expect(try bashCompletes("opsrun --format ", in: project) == ["text", "json", "dot", "mermaid"])
        #expect(try bashCompletes("opsrun --completions z", in: project) == ["zsh"])
        #expect(try bashCompletes("opsrun -C s", in: project) == ["sub"])
        #expect(try bashCompletes("opsrun -f sub/c", in: project) == ["sub/ci.yaml"])
        #expect(try bashCompletes("opsrun --file Tasks", in: project) == ["Tasksfile.yaml"])
        #expect(try bashCompletes("opsrun -C sub build -- su", in: project) == ["sub"])
    }

    /// Every option `--help` shows is offered by every script: one added to the command but not
    /// to `CompletionOption.all` fails here.
    @Test(arguments: ["bash", "zsh", "fish"]) func everyOptionOfTheHelpIsInTheScript(shell: String) throws {
        let help = try OpsrunBinary.run(["--help"], in: URL(fileURLWithPath: "/"))
        let options = optionWords(help.stdout)
        #expect(options.contains("--file") && options.contains("-C") && options.contains("--init"))
        let script = try OpsrunBinary.run(["--completions", shell], in: URL(fileURLWithPath: "/"))
        #expect(script.status == 0)
        let spellings: Set<String> = switch shell {
            case "fish": Set(script.stdout.matches(of: /(?:-s (\w)|-l ([\w-]+))/).map { m in m.output.1.map { "-" + $0 } ?? "--" + m.output.2! })
            default: optionWords(script.stdout)
        }
        #expect(options.subtracting(spellings).isEmpty, "missing from the \(shell) script: \(options.subtracting(spellings).sorted())")
    }

    /// The words of `text` that look like options: `-f`, `--file`.
    func optionWords(_ text: String) -> Set<String> {
        Set(text.split(whereSeparator: { " \t\n,|/()'\"[]{}=<>+:".contains($0) }).map(String.init)
            .filter { $0.wholeMatch(of: /--?[A-Za-z][\w-]*/) != nil })
    }

    static let hasFish = FileManager.default.isExecutableFile(atPath: "/usr/bin/fish")
    static let hasZsh = FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh")

    /// fish completes without a terminal: `complete -C LINE` prints what it offers.
    @Test(.enabled(if: hasFish, "fish is not installed (.ci/run installs it)"))
    func fishCompletesTaskNamesOptionsAndPaths() throws {
        let project = try project()
        func fish(_ line: String) -> [String] {
            let script = "set -gx PATH (dirname $argv[1]) $PATH; $argv[1] --completions fish | source; complete -C $argv[2]"
            let result = OpsrunBinary.run(launcher: ["/usr/bin/fish", "--no-config", "-c", script], [line], in: project.url)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(fish("opsrun -C sub web:") == ["web:build", "web:test"])
        #expect(fish("opsrun -C sub comp") == ["compile", "compile[a.c]", "compile[b.c]"])
        #expect(fish("opsrun --forma") == ["--format"])
        #expect(fish("opsrun --color ") == ["always", "auto", "never"])
        #expect(fish("opsrun -f sub/c") == ["sub/ci.yaml"])
    }

    /// A manifest whose tasks say what they are for: zsh and fish show it beside each name, as
    /// they do for go-task's and just's tasks.
    static let describedManifest = """
        tasks:
          build:
            desc: Build the app
            run: echo b
          web:deploy:
            desc: "Deploy: push the site"
            run: echo d
          web:test: echo t

        """

    /// What zsh's own completion offers for `line` in `directory`, the script that `--completions
    /// zsh` prints first on `$fpath` (a real zsh line editor: `ShellCompletion.zsh`).
    func zshCompletes(_ line: String, in directory: URL) throws -> [String] {
        let functions = directory.appendingPathComponent(".zsh-functions")
        try FileManager.default.createDirectory(at: functions, withIntermediateDirectories: true)
        let script = try OpsrunBinary.run(["--completions", "zsh"], in: directory)
        try script.stdout.write(to: functions.appendingPathComponent("_opsrun"), atomically: true, encoding: .utf8)
        let bin = URL(fileURLWithPath: OpsrunBinary.path).deletingLastPathComponent().path
        return try ShellCompletion.zsh(
            line, functionDirectory: functions.path, in: directory,
            environment: ["PATH": bin + ":/usr/bin:/bin", "HOME": directory.path, "TERM": "dumb"])
    }

    /// What fish offers for `line` in `directory`, the script that `--completions fish` prints
    /// sourced: `NAME` or `NAME<tab>DESCRIPTION`.
    func fishCompletes(_ line: String, in directory: URL) -> [String] {
        let script = "set -gx PATH (dirname $argv[1]) $PATH; $argv[1] --completions fish | source; complete -C $argv[2]"
        let result = OpsrunBinary.run(launcher: ["/usr/bin/fish", "--no-config", "-c", script], [line], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// zsh's completion system, in its line editor, loads the script from `$fpath` and offers the
    /// tasks of the manifest the line names.
    @Test(.enabled(if: hasZsh, "zsh is not installed (.ci/run installs it)"))
    func zshOffersTheTasksOfTheManifestTheLineNames() throws {
        let project = try project()
        let names = ["build", "web:build", "web:test", "compile", "compile[a.c]", "compile[b.c]"]
        #expect(try zshCompletes("opsrun -C sub w", in: project.url) == ["web:build", "web:test"])
        #expect(try zshCompletes("opsrun -f sub/ci.yaml -j 2 ", in: project.url) == names)
        #expect(try zshCompletes("opsrun ", in: project.url) == ["rootonly"])
        #expect(try zshCompletes("opsrun --form", in: project.url) == ["--format"])
    }

    @Test(.enabled(if: hasZsh, "zsh is not installed (.ci/run installs it)"))
    func zshShowsEachTasksDescription() throws {
        let project = try TemporaryProject(Self.describedManifest)
        #expect(try zshCompletes("opsrun ", in: project.url) == ["build: Build the app", "web:deploy: Deploy: push the site", "web:test"])
    }

    /// After `--` the words are the task's own arguments (docs/manual/arguments.md): paths.
    @Test(.enabled(if: hasZsh, "zsh is not installed (.ci/run installs it)"))
    func zshCompletesPathsAfterTheTaskArguments() throws {
        let project = try project()
        #expect(try zshCompletes("opsrun -C sub build -- su", in: project.url) == ["sub"])
        #expect(try zshCompletes("opsrun build -- Tasks", in: project.url) == ["Tasksfile.yaml"])
    }

    @Test(.enabled(if: hasFish, "fish is not installed (.ci/run installs it)"))
    func fishShowsEachTasksDescription() throws {
        let project = try TemporaryProject(Self.describedManifest)
        #expect(fishCompletes("opsrun ", in: project.url) == ["build\tBuild the app", "web:deploy\tDeploy: push the site", "web:test"])
    }

    @Test(.enabled(if: hasFish, "fish is not installed (.ci/run installs it)"))
    func fishCompletesPathsAfterTheTaskArguments() throws {
        let project = try project()
        #expect(fishCompletes("opsrun -C sub build -- su", in: project.url) == ["sub/"])
        #expect(fishCompletes("opsrun build -- sub/c", in: project.url) == ["sub/ci.yaml"])
    }
}

extension OpsrunBinary {
    /// Runs `launcher` with opsrun's path and `arguments` after it: a shell that uses opsrun.
    static func run(
        launcher: [String], _ arguments: [String], in directory: URL, environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Result {
        do {
            return try start(arguments, in: directory, environment: environment, launcher: launcher)
                .wait(sourceLocation: sourceLocation)
        } catch {
            Issue.record("could not start \(launcher[0]): \(error)", sourceLocation: sourceLocation)
            return Result(status: -1, stdout: "", stderr: "")
        }
    }
}
