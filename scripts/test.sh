#!/usr/bin/env bash
# Set-up (packages + Release build) and the whole test suite. `.ci/run` calls this.
# Usage: scripts/test.sh [ctest arguments]   e.g. scripts/test.sh -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
# The whole suite: the sanitized tree (fuzz and asan) is built here, with the main build, so that
# the suite's time is its tests' (its ctest fixture then finds it up to date).
if [ $# -eq 0 ]; then scripts/sanitized-build.sh build/sanitized; fi
cd build
# Two at a time: every test takes its own free ports (tests/integration/FreePorts.h).
ctest --output-on-failure -j2 "$@"
