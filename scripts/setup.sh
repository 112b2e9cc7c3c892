#!/usr/bin/env bash
# Installs every Debian package HiPS Studio needs (idempotent), then builds in Release.
# Usage: scripts/setup.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  libtorch-dev libopenblas0-pthread zlib1g-dev
  libzmq3-dev cppzmq-dev libssh-dev libsodium-dev libssl-dev  # libsodium: the privacy noise's secure random source; libssl: sealed frames
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  libqt6svg6 qt6-translations-l10n
  libqt6sql6-sqlite libsqlite3-dev libgl-dev fonts-dejavu-core fonts-wqy-microhei
  poppler-utils openssh-server  # report tests (pdftotext, pdftoppm, pdfimages); deployment tests (sshd in namespaces)
  qemu-system-x86 busybox-static  # the deployment test's netem WAN where this kernel has no netem (tests/integration/wan_box.sh)
  munge slurmctld slurmd slurm-client  # the Slurm party test: a one-node cluster in the test (tst_slurmparty)
  dataset-fashion-mnist
  python3-torchvision  # the TorchScript tests script torchvision's resnet50 and mobilenet_v2 (tst_owndata)
  clang libclang-rt-14-dev  # the sanitized tree: libFuzzer, ASan, UBSan (tests/fuzz, scripts/sanitized-build.sh)
  clang-format  # the `format` test (scripts/check-format.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "${@:2}"
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
