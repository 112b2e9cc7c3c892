#!/usr/bin/env bash
# Set-up (packages + Release build), then the main job: a real training run on the shipped
# default topology, every role on this machine. Extra arguments go to `hips run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
exec build/bin/hips run "$@"
