#!/bin/sh
# Fuzz/run.sh [manifest|cache-entry] [seconds]: builds a libFuzzer target and runs it on its seed
# corpus for `seconds` (300 when not given). docs/fuzzing.md says what each target checks.
#
# The build goes to .build-fuzz (every module instrumented for libFuzzer), so the ordinary .build is
# left alone; its first build compiles every dependency again. What libFuzzer learns and finds
# stays outside git, in Fuzz/work/TARGET/: corpus/ (inputs it found that reach new code, reused by
# the next run) and crashes/ (an input that crashed, hung or ran out of memory; replay one with
# `.build-fuzz/debug/opsrun-fuzz-TARGET FILE`).
set -eu
target="${1:-manifest}"
seconds="${2:-300}"
case "$target" in
manifest | cache-entry) ;;
*)
    echo "usage: Fuzz/run.sh [manifest|cache-entry] [seconds]" >&2
    exit 2
    ;;
esac
cd "$(dirname "$0")/.."
# OPSRUN_FUZZ=1 makes Package.swift declare the fuzz targets; OPSRUN_FUZZING makes each export
# libFuzzer's entry point instead of a main.
OPSRUN_FUZZ=1 swift build --scratch-path .build-fuzz --product "opsrun-fuzz-$target" \
    --sanitize fuzzer -Xswiftc -DOPSRUN_FUZZING
work="Fuzz/work/$target"
mkdir -p "$work/corpus" "$work/crashes" "$work/seeds"
extra=""
if [ "$target" = manifest ]; then
    # Every example's manifest, by its folder's name.
    for file in Examples/*/Tasksfile.yaml; do
        name="${file#Examples/}"
        cp "$file" "$work/seeds/${name%%/*}.yaml"
    done
    extra="-dict=Fuzz/seeds/manifest.dict"
fi
# A crash leaves its input in crashes/ only when libFuzzer's own handler sees the signal, not
# Swift's backtracer. A run that hangs for 10 s is a finding too.
# shellcheck disable=SC2086
SWIFT_BACKTRACE=enable=no ".build-fuzz/debug/opsrun-fuzz-$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/crashes/" $extra \
    "$work/corpus" "Fuzz/seeds/$target" "$work/seeds"
