#!/bin/sh
# Every test, as CI runs them: the whole suite on a debug build, then the end-to-end tests again
# against the binary the README's first command builds (release, static Swift runtime), since
# some faults (a terminal hang) showed only with that one.
set -eu
# The import check makes a layer that imports one it does not declare (an upward import) an error.
cd "$(dirname "$0")/.."
swift test --explicit-target-dependency-import-check error
swift build -c release --static-swift-stdlib --toolset release.toolset.json --product opsrun
OPSRUN_BINARY="$PWD/.build/release/opsrun" swift test --skip-build --filter EndToEndTests
