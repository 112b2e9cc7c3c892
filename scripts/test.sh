#!/usr/bin/env bash
# Set-up (packages + Release build) and the whole test suite. `.ci/run` calls this.
# Usage: scripts/test.sh [ctest arguments]   e.g. scripts/test.sh -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
cd build
# Two at a time: every test takes its own free ports (tests/integration/FreePorts.h).
ctest --output-on-failure -j2 "$@"
