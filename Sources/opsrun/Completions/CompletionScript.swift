/// `opsrun --completions SHELL`: the script, built from `CompletionOption.all`. Task names are not
/// in it: each script asks `opsrun --list-names` (with the `-f`/`-C` typed so far) as it
/// completes, so it stays right as the manifest changes. That prints `NAME<tab>DESC` a line (the
/// tab and description only for a task with a `desc`): zsh and fish show the description beside
/// the name, as they do for go-task's and just's tasks; bash, which cannot, offers the names.
enum CompletionScript {
    static func text(for shell: CompletionShell) -> String {
        switch shell {
        case .bash: bash(CompletionOption.all)
        case .zsh: zsh(CompletionOption.all)
        case .fish: fish(CompletionOption.all)
        }
    }

    /// Options whose value the next word is, by kind of value, as `case` patterns (`-f|--file`).
    private static func pattern(_ options: [CompletionOption], _ keep: (CompletionOption.Value) -> Bool) -> String {
        options.filter { keep($0.value) }.flatMap { $0.spellings }.joined(separator: "|")
    }

    static func bash(_ options: [CompletionOption]) -> String {
        let choices = options.compactMap { option -> String? in
            guard case .choices(let words) = option.value else { return nil }
            return "        \(option.spellings.joined(separator: "|"))) COMPREPLY=($(compgen -W '\(words.joined(separator: " "))' -- \"$cur\")); return ;;"
        }.joined(separator: "\n")
        return """
            # bash completion for opsrun: eval "$(opsrun --completions bash)", e.g. in ~/.bashrc
            _opsrun() {
                # The word being completed and the one before it, read from the line itself:
                # bash splits words at ':' and '=' (COMP_WORDBREAKS), which task names contain.
                local line=${COMP_LINE:0:COMP_POINT} cur="" prev=""
                local -a words=()
                read -ra words <<< "$line"
                if [[ -n $line && $line != *[[:space:]] ]]; then
                    cur=${words[${#words[@]}-1]}
                    unset 'words[${#words[@]}-1]'
                fi
                (( ${#words[@]} > 0 )) && prev=${words[${#words[@]}-1]}
                COMPREPLY=()
                case $prev in
                    \(pattern(options) { $0 == .file })) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return ;;
                    \(pattern(options) { $0 == .directory })) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")); return ;;
                    \(pattern(options) { $0 == .free })) return ;;
            \(choices)
                esac
                # After '--' the words are the task's own arguments: paths, most often.
                local word i
                for word in "${words[@]:1}"; do
                    if [[ $word == -- ]]; then compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return; fi
                done
                if [[ $cur == -* ]]; then
                    COMPREPLY=($(compgen -W '\(options.flatMap { $0.spellings }.joined(separator: " "))' -- "$cur"))
                    return
                fi
                # The manifest the line names: -f/-C given so far, in either form (-f x, -fx).
                local -a manifest=()
                for (( i = 1; i < ${#words[@]}; i++ )); do
                    case ${words[i]} in
                        -f|--file|-C|--directory) manifest+=("${words[i]}" "${words[i+1]}"); (( i++ )) ;;
                        -f?*|-C?*) manifest+=("${words[i]}") ;;
                    esac
                done
                local listing line
                local -a names=()
                listing=$("${words[0]:-opsrun}" "${manifest[@]}" --list-names 2>/dev/null) || return
                while IFS= read -r line; do names+=("${line%%$'\\t'*}"); done <<< "$listing"
                COMPREPLY=($(compgen -W "${names[*]}" -- "$cur"))
                # Bash replaces only what follows the last ':' or '=' in the word: drop what precedes it.
                local head=""
                [[ $COMP_WORDBREAKS == *:* || $COMP_WORDBREAKS == *=* ]] && [[ $cur == *[:=]* ]] && head=${cur%"${cur##*[:=]}"}
                if [[ -n $head ]]; then
                    for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=${COMPREPLY[i]#"$head"}; done
                fi
            }
            complete -F _opsrun opsrun

            """
    }

    /// zsh's `_arguments` spec of one option: `(-f --file)'{-f+,--file=}'[Use this manifest]:path:_files'`.
    private static func zshSpec(_ option: CompletionOption) -> String {
        let exclusive = option.spellings.count > 1 ? "(\(option.spellings.joined(separator: " ")))" : ""
        let takesValue = option.value != .none
        let names = option.spellings.map { spelling in
            !takesValue ? spelling : spelling.hasPrefix("--") ? spelling + "=" : spelling + "+"
        }
        let nameText = names.count > 1 ? "'\(exclusive)'{\(names.joined(separator: ","))}'" : "'\(names[0])"
        let action: String
        switch option.value {
        case .none: action = ""
        case .file: action = ":path:_files"
        case .directory: action = ":directory:_files -/"
        case .free: action = ":value: "
        case .choices(let words): action = ":\(option.long):(\(words.joined(separator: " ")))"
        }
        return nameText + "[\(option.description)]" + action + "'"
    }

    static func zsh(_ options: [CompletionOption]) -> String {
        """
        #compdef opsrun
        # zsh completion for opsrun: opsrun --completions zsh > "${fpath[1]}/_opsrun"
        # (or, in ~/.zshrc after compinit: source <(opsrun --completions zsh))

        # The task and instance names of the manifest the line names (its -f/-C), each with its desc.
        _opsrun_tasks() {
            local -a manifest described
            local i line
            for (( i = 2; i < CURRENT; i++ )); do
                case ${words[i]} in
                    -f|--file|-C|--directory) manifest+=(${words[i]} ${(Q)words[i+1]}); (( i++ )) ;;
                    -f?*|-C?*) manifest+=(${(Q)words[i]}) ;;
                esac
            done
            # opsrun prints NAME<tab>DESC; _describe takes NAME:DESC, a ':' in the name escaped.
            for line in ${(f)"$(_call_program tasks ${(Q)words[1]} ${(q)manifest} --list-names 2>/dev/null)"}; do
                if [[ $line == *$'\\t'* ]]; then
                    described+=("${${line%%$'\\t'*}//:/\\:}:${line#*$'\\t'}")
                else
                    described+=("${line//:/\\:}")
                fi
            done
            _describe -t tasks task described
        }

        _opsrun() {
            # After '--' the words are the task's own arguments: paths, most often.
            if (( ${words[(I)--]} > 1 && ${words[(I)--]} < CURRENT )); then
                _files
                return
            fi
            _arguments -s -S \\
        \(options.map { "        " + zshSpec($0) + " \\" }.joined(separator: "\n"))
                '*:task:_opsrun_tasks'
        }

        if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
            _opsrun "$@"
        else
            compdef _opsrun opsrun
        fi

        """
    }

    static func fish(_ options: [CompletionOption]) -> String {
        let lines = options.map { option -> String in
            var line = "complete -c opsrun"
            if let short = option.short { line += " -s \(short)" }
            line += " -l \(option.long)"
            switch option.value {
            case .none: break
            case .file: line += " -r -F"
            case .directory: line += " -x -a '(__fish_complete_directories)'"
            case .free: line += " -x"
            case .choices(let words): line += " -x -a '\(words.joined(separator: " "))'"
            }
            return line + " -d '\(option.description.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "\\'"))'"
        }
        return """
            # fish completion for opsrun: opsrun --completions fish > ~/.config/fish/completions/opsrun.fish

            # The task and instance names of the manifest the line names (its -f/-C).
            function __opsrun_tasks
                set -l tokens (commandline -opc)
                set -l manifest
                set -l i 2
                while test $i -le (count $tokens)
                    switch $tokens[$i]
                        case -f --file -C --directory
                            set i (math $i + 1)
                            test $i -le (count $tokens); and set -a manifest $tokens[(math $i - 1)] $tokens[$i]
                        case '-f?*' '-C?*'
                            set -a manifest $tokens[$i]
                    end
                    set i (math $i + 1)
                end
                $tokens[1] $manifest --list-names 2>/dev/null
            end

            # Tasks (opsrun prints NAME<tab>DESC, which fish shows as the name and its description);
            # after '--' the words are the task's own arguments: paths, most often.
            complete -c opsrun -f
            complete -c opsrun -n 'not contains -- -- (commandline -opc)' -a '(__opsrun_tasks)'
            complete -c opsrun -n 'contains -- -- (commandline -opc)' -F
            \(lines.joined(separator: "\n"))

            """
    }
}
