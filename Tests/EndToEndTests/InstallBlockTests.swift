import Foundation
import Testing

/// The README's install block, run as written on a fresh machine (docs/manual/fitting-in.md): a
/// fresh `HOME` and `PREFIX=$HOME/.local` in a temporary directory, the block read from README.md
/// so that the two cannot drift, then `man opsrun`, `man tasksfile`, and a task name completed by
/// bash, zsh and fish from the files it installed, each found where that shell looks by itself.
///
/// It reuses the release build that Tests/all.sh makes before its end-to-end run (a `swift build`
/// inside `swift test` would wait on the build directory's lock), so it runs only then.
@Suite(.enabled(if: ReleaseBuild.isBuilt, "only with the release build: Tests/all.sh builds it and sets OPSRUN_BINARY=.build/release/opsrun"))
struct InstallBlockTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized
    static let releaseBinary = ReleaseBuild.binary

    /// The lines of the README's block: the `sh` fence after the `install-block` marker.
    static func block() throws -> [String] {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let afterMarker = try #require(readme.components(separatedBy: "<!-- install-block:").dropFirst().first, "README.md has no install-block marker")
        let fenced = try #require(afterMarker.components(separatedBy: "```sh\n").dropFirst().first)
        let body = try #require(fenced.components(separatedBy: "\n```").first)
        return body.split(separator: "\n").map(String.init)
    }

    /// A clean directory standing for a fresh clone: what the block and the install script read
    /// (the release build linked in), and the example it runs, so that nothing lands in the repository.
    static func freshClone(in root: URL) throws -> URL {
        let clone = root.appendingPathComponent("clone")
        let files = ["Scripts/install.sh", "docs/opsrun.1", "docs/tasksfile.5", "docs/tasksfile.schema.json", "Examples/hello/Tasksfile.yaml"]
        for file in files {
            let target = clone.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: repository.appendingPathComponent(file), to: target)
        }
        let build = clone.appendingPathComponent(".build/release")
        try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: build.appendingPathComponent("opsrun"), withDestinationURL: releaseBinary)
        return clone
    }

    /// Whether dpkg has `package` installed.
    static func installed(_ package: String) -> Bool {
        let result = ExternalCommand.run(
            ["/usr/bin/dpkg-query", "-W", "-f=${Status}", package], in: repository, environment: ["PATH": "/usr/bin:/bin"])
        return result.stdout.hasSuffix("install ok installed")
    }

    /// Whether the ELF file at `path` has a symbol table (`.symtab`), which `strip` removes.
    static func hasSymbolTable(_ path: String) -> Bool {
        let result = ExternalCommand.run(["/usr/bin/readelf", "-S", "-W", path], in: repository, environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "readelf: \(result.stderr)")
        return result.stdout.contains(" .symtab ")
    }

    @Test func theReadmesInstallBlockGivesManPagesAStrippedBinaryAndCompletionInEveryShell() throws {
        let lines = try Self.block()
        // Left out: the package line (the packages must already be here: .ci/run installs them)
        // and the build (Tests/all.sh made it, with the same command).
        let packageLines = lines.filter { $0.contains("apt-get install") }
        let buildLines = lines.filter { $0.hasPrefix("swift build") }
        try #require(packageLines.count == 1 && buildLines.count == 1, "the block has one apt-get line and one build line: \(lines)")
        let allScript = try String(contentsOf: Self.repository.appendingPathComponent("Tests/all.sh"), encoding: .utf8)
        #expect(allScript.contains(buildLines[0] + "\n"), "Tests/all.sh builds the release binary otherwise than the README: \(buildLines[0])")
        let packages = packageLines[0].components(separatedBy: "install -y ").last?.split(separator: " ").map(String.init) ?? []
        #expect(packages.contains("libyaml-dev") && packages.contains("man-db"))
        let missing = packages.filter { !Self.installed($0) }
        try #require(missing.isEmpty, "the README's packages are not all installed (.ci/run installs them): \(missing)")
        // `sudo` a function that runs its command: never the real one; the block is run as a user
        // who installs for themself, with PREFIX=~/.local.
        let script = (["set -e", #"sudo() { "$@"; }"#] + lines.filter { !packageLines.contains($0) && !buildLines.contains($0) })
            .joined(separator: "\n")

        let root = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let clone = try Self.freshClone(in: root)
        let home = root.appendingPathComponent("home"), prefix = home.appendingPathComponent(".local")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        // A fresh login's environment: no MANPATH, no XDG_DATA_DIRS; ~/.local/bin on the PATH.
        let environment = [
            "HOME": home.path, "PATH": prefix.path + "/bin:/usr/bin:/bin", "PREFIX": prefix.path,
            "LANG": "C.UTF-8", "TERM": "dumb", "USER": "opsrun-test", "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100",
        ]
        let run = ExternalCommand.run(["/bin/bash", "-c", script], in: clone, environment: environment, deadline: 120)
        #expect(run.status == 0, "the install block failed: \(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("hello | hello from hello\n"), "\(run.stdout)")

        // A stripped binary, on the PATH.
        let installed = prefix.appendingPathComponent("bin/opsrun").path
        try #require(FileManager.default.isExecutableFile(atPath: installed))
        #expect(Self.hasSymbolTable(Self.releaseBinary.path), "the release build has no symbols to strip: this check would prove nothing")
        #expect(!Self.hasSymbolTable(installed), "the installed opsrun is not stripped")
        let version = ExternalCommand.run([installed, "--version"], in: home, environment: environment)
        let built = ExternalCommand.run([Self.releaseBinary.path, "--version"], in: home, environment: environment)
        #expect(version.status == 0 && version.stdout == built.stdout)

        // The man pages: found by man-db from the PATH entry ~/.local/bin, with nothing to warn about.
        for (name, title) in [("opsrun", "OPSRUN(1)"), ("tasksfile", "TASKSFILE(5)")] {
            let page = ExternalCommand.run(["/usr/bin/man", "--warnings", name], in: home, environment: environment)
            #expect(page.status == 0 && page.stdout.hasPrefix(title), "man \(name): \(page.stderr)")
            #expect(page.stderr == "", "man --warnings \(name)")
        }

        // A task name completed in each shell, from the installed script the shell finds itself.
        let project = clone.appendingPathComponent("Examples/hello")
        if ShellCompletion.hasBash {
            let loader = FileManager.default.fileExists(atPath: ShellCompletion.bashCompletionLoader)
            let script = loader ? nil : prefix.appendingPathComponent("share/bash-completion/completions/opsrun").path
            #expect(ShellCompletion.bash("opsrun hel", script: script, in: project, environment: environment) == ["hello"])
        }
        if ShellCompletion.hasZsh {
            // zsh's default $fpath holds /usr/local's site-functions, not ~/.local's: the README's
            // PREFIX=~/.local asks for this line in ~/.zshrc; its /usr/local install needs none.
            let functions = prefix.appendingPathComponent("share/zsh/site-functions").path
            #expect(try ShellCompletion.zsh("opsrun hel", functionDirectory: functions, in: project, environment: environment) == ["hello: Say hello"])
        }
        if ShellCompletion.hasFish {
            #expect(ShellCompletion.fish("opsrun hel", in: project, environment: environment) == ["hello\tSay hello"])
        }
    }

    /// The block's own install, for every user under /usr/local (staged with DESTDIR here): each
    /// file lands in a place that man, bash-completion, zsh and fish search by default on this
    /// machine, with no setting of the user's.
    @Test func theSystemWideInstallPutsEachFileWhereItsReaderLooksByDefault() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let clone = try Self.freshClone(in: root)
        let stage = root.appendingPathComponent("stage")
        let environment = ["PATH": "/usr/bin:/bin", "HOME": root.path, "DESTDIR": stage.path, "LANG": "C.UTF-8"]
        let install = ExternalCommand.run(["/bin/sh", "Scripts/install.sh"], in: clone, environment: environment)
        #expect(install.status == 0, "\(install.stderr)")
        let files = FileManager.default.enumerator(atPath: stage.path)?.compactMap { $0 as? String }
            .filter { !FileManager.default.fileExists(atPath: stage.path + "/" + $0 + "/.") }.sorted() ?? []
        #expect(files == [
            "etc/fish/completions/opsrun.fish",
            "usr/local/bin/opsrun",
            "usr/local/share/bash-completion/completions/opsrun",
            "usr/local/share/man/man1/opsrun.1",
            "usr/local/share/man/man5/tasksfile.5",
            "usr/local/share/opsrun/tasksfile.schema.json",
            "usr/local/share/zsh/site-functions/_opsrun",
        ])

        // man-db: its search path for a PATH of /usr/local/bin, with no MANPATH.
        let manpath = ExternalCommand.run(["/usr/bin/manpath", "-q"], in: root, environment: ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": root.path])
        #expect(manpath.stdout.split(separator: ":").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.contains("/usr/local/share/man"), "manpath: \(manpath.stdout)")
        if ShellCompletion.hasZsh {
            let fpath = ExternalCommand.run(["/usr/bin/zsh", "-f", "-c", "print -l $fpath"], in: root, environment: ["HOME": root.path])
            #expect(fpath.stdout.split(separator: "\n").contains("/usr/local/share/zsh/site-functions"), "zsh's $fpath: \(fpath.stdout)")
        }
        if ShellCompletion.hasFish {
            let path = ExternalCommand.run(["/usr/bin/fish", "-c", "string join \\n $fish_complete_path"], in: root, environment: ["HOME": root.path])
            #expect(path.stdout.split(separator: "\n").contains("/etc/fish/completions"), "fish's $fish_complete_path: \(path.stdout)")
        }
        if FileManager.default.fileExists(atPath: ShellCompletion.bashCompletionLoader) {
            // The directories bash-completion's loader searches, with XDG_DATA_DIRS unset.
            let code = #"source "$1"; declare -f __load_completion _comp_load 2>/dev/null | grep -o 'XDG_DATA_DIRS:-[^}]*'"#
            let dirs = ExternalCommand.run(["/bin/bash", "--norc", "-c", code, "bash", ShellCompletion.bashCompletionLoader], in: root, environment: ["HOME": root.path, "PATH": "/usr/bin:/bin"])
            #expect(dirs.stdout.contains("/usr/local/share:"), "bash-completion's default directories: \(dirs.stdout)")
        }
    }
}

/// The release build of this repository, when the tests run against it (Tests/all.sh).
private enum ReleaseBuild {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../.build/release/opsrun").standardized
    static var isBuilt: Bool {
        ProcessInfo.processInfo.environment["OPSRUN_BINARY"].map { URL(fileURLWithPath: $0).standardized.path }
            == binary.path && FileManager.default.isExecutableFile(atPath: binary.path)
    }
}
