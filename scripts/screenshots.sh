#!/usr/bin/env bash
# Regenerates the README's screenshots (docs/screenshots/*.png) from a real run: trains the
# default topology (MLP, 10 rounds) into a scratch history, then has hips-studio picture each
# tab offscreen. Usage: scripts/screenshots.sh [BUILD_DIR]   (default: build; built already)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/bin
OUT=docs/screenshots
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$SCRATCH/config"
mkdir -p "$OUT"

"$BIN/hips" run --model mlp --rounds 10 --history "$SCRATCH/history.sqlite" --out "$SCRATCH/run" >/dev/null
for tab in design run charts history; do
  "$BIN/hips-studio" --history "$SCRATCH/history.sqlite" --show-run 1 --tab "$tab" --screenshot "$OUT/$tab.png"
done
"$BIN/hips-studio" --history "$SCRATCH/history.sqlite" --language zh_CN --screenshot "$OUT/design-zh_CN.png"
echo "wrote $(ls "$OUT" | tr '\n' ' ')"
