#!/bin/sh
# Scripts/install.sh [PREFIX]: installs the release build (.build/release/opsrun, made by the
# README's build command) under PREFIX (default /usr/local; also read from $PREFIX), stripped,
# with its man pages, the manifest's JSON Schema and the completion scripts for bash, zsh and
# fish, each where that shell looks by itself for a system-wide install (docs/manual/fitting-in.md):
#
#   PREFIX/bin/opsrun                                        stripped: 33 MB instead of 108
#   PREFIX/share/man/man1/opsrun.1, man5/tasksfile.5         man-db reads PREFIX/share/man of a PATH entry PREFIX/bin
#   PREFIX/share/opsrun/tasksfile.schema.json
#   PREFIX/share/bash-completion/completions/opsrun          bash-completion: XDG_DATA_DIRS (default /usr/local/share:/usr/share), ~/.local/share
#   PREFIX/share/zsh/site-functions/_opsrun                  zsh: /usr/local/share/zsh/site-functions is on the default $fpath
#                                                            (for /usr: /usr/share/zsh/vendor-completions)
#   PREFIX/share/fish/vendor_completions.d/opsrun.fish       fish: XDG_DATA_DIRS, ~/.local/share; for /usr/local,
#                                                            /etc/fish/completions (fish reads /usr/local/share only
#                                                            when XDG_DATA_DIRS names it; /etc/fish always)
#
# DESTDIR stages the files under another root (packaging, and the test that checks these places).
# It builds nothing: `swift build -c release --static-swift-stdlib --toolset release.toolset.json`
# first. Run it with sudo for /usr/local; `PREFIX=~/.local Scripts/install.sh` for yourself alone.
set -eu
cd "$(dirname "$0")/.."
prefix=${1:-${PREFIX:-/usr/local}}
prefix=${prefix%/}
root=${DESTDIR:-}
binary=.build/release/opsrun

if [ ! -x "$binary" ]; then
    echo "install.sh: no $binary: build it first with" >&2
    echo "  swift build -c release --static-swift-stdlib --toolset release.toolset.json --product opsrun" >&2
    exit 1
fi
case $prefix in
    /*) ;;
    *) echo "install.sh: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;;
esac
# The nearest existing directory of the prefix must be writable (else: sudo, or PREFIX=~/.local).
existing=$root$prefix
while [ ! -d "$existing" ]; do existing=$(dirname "$existing"); done
if [ ! -w "$existing" ]; then
    echo "install.sh: cannot write to $existing: run it with sudo, or install for yourself: PREFIX=~/.local $0" >&2
    exit 1
fi

zsh_functions=$prefix/share/zsh/site-functions
fish_completions=$prefix/share/fish/vendor_completions.d
case $prefix in
    /usr/local) fish_completions=/etc/fish/completions ;;
    /usr) zsh_functions=/usr/share/zsh/vendor-completions ;;  # Debian's zsh: site-functions is /usr/local's
esac

install -d "$root$prefix/bin" "$root$prefix/share/man/man1" "$root$prefix/share/man/man5" \
    "$root$prefix/share/opsrun" "$root$prefix/share/bash-completion/completions" \
    "$root$zsh_functions" "$root$fish_completions"
# Stripped: the symbol table and debug information are three quarters of the file, and nothing
# at run time reads them.
install -s -m 755 "$binary" "$root$prefix/bin/opsrun"
install -m 644 docs/opsrun.1 "$root$prefix/share/man/man1/opsrun.1"
install -m 644 docs/tasksfile.5 "$root$prefix/share/man/man5/tasksfile.5"
install -m 644 docs/tasksfile.schema.json "$root$prefix/share/opsrun/tasksfile.schema.json"
"$binary" --completions bash > "$root$prefix/share/bash-completion/completions/opsrun"
"$binary" --completions zsh > "$root$zsh_functions/_opsrun"
"$binary" --completions fish > "$root$fish_completions/opsrun.fish"
chmod 644 "$root$prefix/share/bash-completion/completions/opsrun" \
    "$root$zsh_functions/_opsrun" "$root$fish_completions/opsrun.fish"

if [ -n "$root" ]; then
    echo "staged opsrun $("$binary" --version) for $prefix/bin under $root"
    exit 0
fi
echo "installed opsrun $("$binary" --version) in $prefix/bin"
# What a shell of this machine would not find by itself.
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on your PATH: export PATH=\"$prefix/bin:\$PATH\" (and in ~/.profile)" ;;
esac
if [ "$prefix" != /usr/local ] && [ "$prefix" != /usr ] && command -v zsh >/dev/null 2>&1; then
    echo "note: for zsh, add to ~/.zshrc before compinit: fpath=($prefix/share/zsh/site-functions \$fpath)"
fi
# bash-completion and fish look in ~/.local/share and in XDG_DATA_DIRS (by default
# /usr/local/share:/usr/share), nowhere else.
case $prefix in
    /usr/local | /usr | "$HOME/.local") ;;
    *)
        case ":${XDG_DATA_DIRS:-/usr/local/share:/usr/share}:" in
            *":$prefix/share:"*) ;;
            *) echo "note: for bash and fish completion, in ~/.profile:" \
                "export XDG_DATA_DIRS=\"$prefix/share:\${XDG_DATA_DIRS:-/usr/local/share:/usr/share}\"" ;;
        esac ;;
esac
