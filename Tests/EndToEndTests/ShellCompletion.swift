import Foundation
import Testing

/// What each shell's own completion offers for a command line, from an installed or generated
/// script: bash through the script's function (and bash-completion's loader when it is
/// installed), fish through `complete -C`, zsh through its line editor on a pseudo-terminal.
/// `opsrun` is found on the `PATH` given, as a user's shell finds it.
enum ShellCompletion {
    static let hasBash = FileManager.default.isExecutableFile(atPath: "/bin/bash")
    static let hasZsh = FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh")
    static let hasFish = FileManager.default.isExecutableFile(atPath: "/usr/bin/fish")
    /// bash-completion's loader: it finds a command's script by the command's name on first use.
    static let bashCompletionLoader = "/usr/share/bash-completion/bash_completion"

    /// What bash offers for `line` (the cursor at its end): `script` sourced, or, when nil,
    /// bash-completion's loader, which must find opsrun's script where it looks by default; then
    /// whatever function is registered for `opsrun` called as bash calls it, `COMPREPLY` printed.
    static func bash(
        _ line: String, script: String?, in directory: URL, environment: [String: String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String] {
        let code = """
            if [[ -n $1 ]]; then source "$1" || exit 9; else source \(bashCompletionLoader) || exit 9; __load_completion opsrun || exit 8; fi
            COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$COMP_LINE"; [[ $COMP_LINE == *' ' ]] && COMP_WORDS+=(""); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            function=$(complete -p opsrun) || exit 7; function=${function#*-F }; function=${function%% *}
            "$function" opsrun "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = ExternalCommand.run(["/bin/bash", "--norc", "--noprofile", "-c", code, "bash", script ?? "", line], in: directory, environment: environment, sourceLocation: sourceLocation)
        #expect(result.status == 0, "bash: \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// What fish offers for `line`: `complete -C`, with the user's and the system's configuration
    /// read as a login would, so that fish finds opsrun's script on its own search path.
    /// Each entry `NAME` or `NAME<tab>DESCRIPTION`.
    static func fish(
        _ line: String, in directory: URL, environment: [String: String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String] {
        let result = ExternalCommand.run(["/usr/bin/fish", "-c", "complete -C $argv[1]", line], in: directory, environment: environment, sourceLocation: sourceLocation)
        #expect(result.status == 0, "fish: \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// What zsh's completion system offers for `line` in its line editor: an interactive zsh on a
    /// pseudo-terminal (zsh/zpty), `functionDirectory` first on `$fpath`, `compinit`, the line typed
    /// and a Tab pressed; every match that reaches `compadd` is printed with the text zsh shows for
    /// it. Each entry `NAME`, or `NAME: DESCRIPTION` for one shown with a description; in order of
    /// first appearance (zsh adds some twice: once to match, once to show).
    static func zsh(
        _ line: String, functionDirectory: String, in directory: URL, environment: [String: String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String] {
        let setup = FileManager.default.temporaryDirectory.appendingPathComponent("opsrun-e2e-\(UUID().uuidString).zsh")
        defer { try? FileManager.default.removeItem(at: setup) }
        try zshSetup.write(to: setup, atomically: true, encoding: .utf8)
        let result = ExternalCommand.run(
            ["/usr/bin/zsh", "-f", "-c", zshDriver, "zsh", setup.path, functionDirectory, line], in: directory,
            environment: environment, sourceLocation: sourceLocation)
        #expect(result.status == 0, "zsh: \(result.stdout)\(result.stderr)", sourceLocation: sourceLocation)
        var entries: [String] = []
        var described: [String: String] = [:]
        for hit in result.stdout.split(separator: "\n") {
            let fields = hit.split(separator: "\t", maxSplits: 1)
            let name = String(fields[0])
            if !entries.contains(name) { entries.append(name) }
            // _describe shows `name   -- description`.
            if fields.count == 2, let range = fields[1].range(of: " -- ") {
                described[name] = String(fields[1][range.upperBound...])
            }
        }
        return entries.map { name in described[name].map { name + ": " + $0 } ?? name }
    }

    /// Sourced by the interactive zsh: prints `HIT:` and each match compadd is given (and a tab
    /// and its shown text), then `ENDOFHITS` once completion is over.
    static let zshSetup = #"""
        PS1= PROMPT= RPROMPT=
        autoload -Uz compinit && compinit -u -D
        __capture_compadd() {
            local -a __capture_hits __capture_shown
            builtin compadd -O __capture_hits "$@"
            (( $@[(I)-d] )) && __capture_shown=("${(@P)${@[$@[(i)-d]+1]}}")
            local __capture_i __capture_tab=$'\t'
            for (( __capture_i = 1; __capture_i <= $#__capture_hits; __capture_i++ )); do
                print -r -- "HIT:${__capture_hits[__capture_i]}${__capture_shown[__capture_i]:+$__capture_tab${__capture_shown[__capture_i]}}"
            done
            builtin compadd "$@"
        }
        __capture_start() { compadd() { __capture_compadd "$@" } }
        __capture_end() { print -r -- "END""OFHITS" }
        compprefuncs=(__capture_start)
        comppostfuncs=(__capture_end)
        bindkey '^I' complete-word
        print -r -- "READY""NOW"

        """#

    /// `zsh -f -c DRIVER zsh SETUP FPATH-DIRECTORY LINE`.
    static let zshDriver = #"""
        zmodload zsh/zpty || exit 7
        zpty z zsh -f -i
        zpty -w z "fpath=(${(q)2} \$fpath); source ${(q)1}"
        zpty -r z line '*READYNOW*' || exit 8
        zpty -w -n z "$3"$'\t'
        while zpty -r z line; do
            [[ $line == *ENDOFHITS* ]] && break
            [[ $line == *HIT:* ]] && print -r -- "${${line#*HIT:}%%$'\r'*}"
        done
        zpty -d z

        """#
}
