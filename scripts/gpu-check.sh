#!/usr/bin/env bash
# The headless build (hips, hips-agent, hips-trainer; HIPS_BUILD_UI=OFF) on a GPU machine that has
# LibTorch with CUDA but no package registry, its unit tests, and GPU runs of the default topology.
#
#   scripts/gpu-check.sh --download [DEBS]   on a Debian 12 machine with its registry: fills DEBS
#                                            (default .gpu-debs, ~50 MB) with the packages below
#   scripts/gpu-check.sh [DEBS]              on the GPU machine: unpacks DEBS under $DEPS_ROOT,
#                                            builds against HIPS_TORCH_DIR (default: python3's torch),
#                                            runs the unit tests, then the CPU and the GPU run
#   scripts/gpu-check.sh --full [DEBS]       also the mixed runs (2 workers on cuda:0, 2 on the CPU)
#                                            in esync against ssgd, with the time to 0.8 of each, and
#                                            bench_gpu_rules (robust rules on the GPU against the CPU)
#
# Environment: BUILD_DIR (build-gpu), DEPS_ROOT (/tmp/hips-deps), HIPS_TORCH_DIR, ROUNDS (20).
set -euo pipefail
cd "$(dirname "$0")/.."

# What the headless build needs beyond a compiler, CMake, Ninja and LibTorch: what it builds against,
# always unpacked, and the system libraries below those, left out where the machine has them (by
# soname) so that its own stay in use.
PACKAGES=(
  qt6-base-dev qt6-base-dev-tools libqt6core6 libqt6sql6 libqt6sql6-sqlite libqt6test6 libsqlite3-dev libsqlite3-0
  qmake6  # only for its mkspecs/linux-g++, which Qt's CMake files name
  libzmq3-dev libzmq5 cppzmq-dev libssh-dev libssh-4 zlib1g-dev pkgconf pkgconf-bin libpkgconf3
  dataset-fashion-mnist
)
SYSTEM_PACKAGES=(
  libicu72 libdouble-conversion3 libb2-1 libpcre2-16-0 libglib2.0-0 libzstd1
  libsodium23 libpgm-5.3-0 libnorm1 libbsd0 libmd0
  libssl3 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libkeyutils1
)

full=0
case "${1:-}" in
  --download)
    dir=${2:-.gpu-debs}
    mkdir -p "$dir"
    (cd "$dir" && apt-get download "${PACKAGES[@]}" "${SYSTEM_PACKAGES[@]}")
    du -sh "$dir"
    exit 0 ;;
  --full) full=1; shift ;;
esac
DEBS=$(realpath "${1:-.gpu-debs}")
BUILD_DIR=${BUILD_DIR:-build-gpu}
ROOT=${DEPS_ROOT:-/tmp/hips-deps}
ROUNDS=${ROUNDS:-20}
LIBDIR=$ROOT/usr/lib/x86_64-linux-gnu
[ -d "$DEBS" ] && compgen -G "$DEBS/*.deb" >/dev/null ||
  { echo "gpu-check: no .deb files in $DEBS; fill it with '$0 --download $DEBS' on a Debian 12 machine" >&2; exit 2; }

echo "== machine"
uname -srm; grep PRETTY_NAME /etc/os-release || true
c++ --version | head -1; cmake --version | head -1
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
nvcc --version 2>/dev/null | tail -1 || echo "no nvcc"
nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"

echo "== unpacking $(ls "$DEBS"/*.deb | wc -l) packages into $ROOT"
mkdir -p "$ROOT"
list_deb() { if command -v dpkg-deb >/dev/null; then dpkg-deb -c "$1"; else ar p "$1" data.tar.xz | tar -tvJ; fi; }
unpack_deb() { if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$1" "$2"; else ar p "$1" data.tar.xz | tar -xJ -C "$2"; fi; }
system_libs=$(ldconfig -p | awk '{print $1}')
for deb in "$DEBS"/*.deb; do
  sonames=$(list_deb "$deb" | awk '{print $6}' | grep -oE 'lib[^/]+\.so\.[0-9]+$' | sort -u || true)
  package=$(basename "$deb"); package=${package%%_*}
  if [[ " ${SYSTEM_PACKAGES[*]} " == *" $package "* ]] && [ -n "$sonames" ] && ! grep -vxFf <(echo "$system_libs") <<<"$sonames" | grep -q .; then
    continue  # every library it holds is on this machine already
  fi
  unpack_deb "$deb" "$ROOT"
done
# A development link whose library was left out points at the machine's copy instead.
find "$LIBDIR" -maxdepth 1 -xtype l -name '*.so' | while read -r link; do
  target=$(ldconfig -p | awk -v n="$(basename "$link").*" '$1 ~ n {print $NF; exit}')
  if [ -n "$target" ]; then ln -sf "$target" "$link"; else echo "gpu-check: $link has no library to point at"; fi
done
# Qt's CMake files name every Qt tool; those the headless build never runs (qmake, Android's) are
# not carried, and stand in as stubs that say so.
grep -ho '_IMPORT_PREFIX}/[^"]*' "$LIBDIR"/cmake/Qt6*Tools/*Targets-*.cmake | sed "s|_IMPORT_PREFIX}|$ROOT/usr|" |
  while read -r tool; do
    [ -e "$tool" ] && continue
    rm -f "$tool"  # a link to a program not carried (qmake6 links to qmake6-bin's)
    mkdir -p "$(dirname "$tool")"
    printf '#!/bin/sh\necho "%s: not carried by scripts/gpu-check.sh" >&2\nexit 1\n' "$(basename "$tool")" >"$tool"
    chmod +x "$tool"
  done
sed -i "s|^prefix=/usr|prefix=$ROOT/usr|" "$LIBDIR"/pkgconfig/*.pc "$ROOT"/usr/share/pkgconfig/*.pc 2>/dev/null || true
command -v pkg-config >/dev/null || export PATH=$ROOT/usr/bin:$PATH
export PKG_CONFIG_PATH=$LIBDIR/pkgconfig:$ROOT/usr/share/pkgconfig
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export QT_PLUGIN_PATH=$LIBDIR/qt6/plugins

TORCH_DIR=${HIPS_TORCH_DIR:-$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)}
[ -n "$TORCH_DIR" ] || { echo "gpu-check: no LibTorch: set HIPS_TORCH_DIR, or install PyTorch for python3" >&2; exit 2; }
echo "== building against $TORCH_DIR"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHIPS_BUILD_UI=OFF \
  -DHIPS_TORCH_DIR="$TORCH_DIR" -DCMAKE_PREFIX_PATH="$ROOT/usr;$LIBDIR/cmake;$ROOT/usr/share/cmake" \
  -Dlibssh_DIR="$LIBDIR/cmake/libssh" -DCUDAToolkit_ROOT="${CUDA_HOME:-/usr/local/cuda}"
cmake --build "$BUILD_DIR" --parallel "$(nproc)" -- -k 0  # every error at once

echo "== unit tests, and the devices' integration test"
# A failing test is reported and the runs below still run: the GPU's figures are worth having
# either way, and the script's status says the tests failed.
tests_failed=""
export HIPS_TEST_NO_DEBIAN_PYTHON=1  # tst_owndata's torchvision nets need Debian's python3-torchvision
(cd "$BUILD_DIR" && ctest -L unit --output-on-failure --timeout 300) || tests_failed="$tests_failed unit"
(cd "$BUILD_DIR" && ctest -R tst_devices --output-on-failure --timeout 300) || tests_failed="$tests_failed tst_devices"

data=$ROOT/usr/share/datasets/fashion-mnist
hips=$BUILD_DIR/bin/hips
history=$(mktemp -d)/history.db
rm -rf "$BUILD_DIR/runs"  # (a directory that holds a run is not written over: each check runs afresh)
# Runs the default topology; prints its summary line and the mean time per round (from the
# rounds' elapsed column, first round left out: it carries the start-up).
run() {
  local label=$1; shift
  local log=$BUILD_DIR/gpu-check-$label.log
  "$hips" run --history "$history" --data-dir "$data" --rounds "$ROUNDS" --out "$BUILD_DIR/runs/$label" "$@" | tee "$log"
  awk -v label="$label" '
    /^ *[0-9]+ +[0-9.-]+ / { e = $NF; sub("s", "", e); if ($1 == 1) first = e; last = e; n = $1;
                            if (!t8 && $2 != "-" && $2 >= 0.8) t8 = e }
    /final test accuracy/ { match($0, /final test accuracy [0-9.]+/); acc = substr($0, RSTART + 20, RLENGTH - 20) }
    END { printf "%-8s final accuracy %s, %.3f s per round, 0.8 after %s s\n", label, acc,
                 (n > 1 ? (last - first) / (n - 1) : last), (t8 ? t8 : "never") }' "$log" >>"$BUILD_DIR/gpu-check-summary.txt"
}
rm -f "$BUILD_DIR/gpu-check-summary.txt"
echo "== default topology, every worker on the CPU"
run cpu
echo "== default topology, every worker and the master on cuda:0"
run cuda --device cuda:0
echo "== refused: a GPU this host does not have"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if "$hips" run --history "$history" --data-dir "$data" --rounds 1 --out "$BUILD_DIR/runs/refused" --device "cuda:$gpus" \
     >"$BUILD_DIR/gpu-check-refused.log" 2>&1; then
  echo "gpu-check: a run on cuda:$gpus (this host has $gpus GPU(s)) was not refused" >&2; exit 1
fi
grep "cuda:$gpus" "$BUILD_DIR/gpu-check-refused.log"
if [ "$full" = 1 ]; then
  # ESync's setting: fast (GPU) and slow (CPU) workers, with ESync's defaults (its margin derived
  # from the measured step times).
  echo "== mixed: party1's workers on cuda:0, party2's on the CPU, mode ssgd"
  run mixed-ssgd --mode ssgd --device party1=cuda:0
  echo "== mixed: party1's workers on cuda:0, party2's on the CPU, mode esync (defaults)"
  run mixed-esync --mode esync --device party1=cuda:0
  echo "== the geometric median at a global server on cuda:0 (its rule's work on the GPU)"
  run gm-gpu-server --aggregation geometric_median --server-device cuda:0
  echo "== robust rules on the GPU"
  "$BUILD_DIR/bin/bench_gpu_rules" | tee "$BUILD_DIR/gpu-check-rules.log"
fi
echo "== summary"
cat "$BUILD_DIR/gpu-check-summary.txt"
awk '/^cuda / { if ($4 + 0 < 0.85) { print "gpu-check: the GPU run ended at " $4 ", below 0.85"; exit 1 } }' \
  "$BUILD_DIR/gpu-check-summary.txt"
if [ -n "$tests_failed" ]; then echo "gpu-check: the runs passed, but these tests failed:$tests_failed" >&2; exit 1; fi
echo "gpu-check: passed"
