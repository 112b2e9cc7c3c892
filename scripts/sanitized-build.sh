#!/usr/bin/env bash
# Configures and builds the sanitized tree (tests/fuzz/CMakeLists.txt): the libFuzzer targets
# and the torch-free unit tests, with clang++ under ASan + UBSan. No LibTorch, no GUI.
# The main build's ctest runs this as the setup of the `fuzz` and `asan` tests.
# Usage: scripts/sanitized-build.sh [BUILD_DIR]   (default: build-sanitized)
#   HIPS_SANITIZE_JOBS=N   parallel build jobs (default: nproc)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${1:-$ROOT/build-sanitized}
JOBS=${HIPS_SANITIZE_JOBS:-$(nproc)}

CXX_BIN=$(command -v clang++ || true)
if [ -z "$CXX_BIN" ]; then
  echo "sanitized-build: clang++ not found; scripts/setup.sh installs clang and libclang-rt-14-dev" >&2
  exit 1
fi
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
     "$CXX_BIN" -x c++ -fsanitize=fuzzer,address,undefined -o /dev/null - 2>/dev/null; then
  echo "sanitized-build: $CXX_BIN cannot link -fsanitize=fuzzer,address,undefined (libclang-rt-14-dev missing?)" >&2
  exit 1
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=()
[ -f "$BUILD_DIR/CMakeCache.txt" ] || { command -v ninja >/dev/null && generator=(-G Ninja); }

start=$(date +%s)
cmake -S "$ROOT/tests/fuzz" -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_CXX_COMPILER="$CXX_BIN" "${launcher[@]}" >/dev/null
cmake --build "$BUILD_DIR" --parallel "$JOBS"
echo "sanitized-build: $BUILD_DIR built in $(( $(date +%s) - start )) s"
