#!/usr/bin/env bash
# Regenerates the pictures of README.md and docs/ (docs/screenshots/*.png) from real runs: trains the default
# topology twice (MLP, 10 rounds; the second with learning rate 0.02, for the compare view) into a
# scratch history, has hips-studio picture every tab offscreen in English and in Chinese, the
# History tab comparing the two runs, and renders the first pages of the PDF report.
# Usage: scripts/screenshots.sh [BUILD_DIR]   (default: build; built already; needs pdftoppm)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/bin
OUT=docs/screenshots
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$SCRATCH/config"
HISTORY="$SCRATCH/history.sqlite"
mkdir -p "$OUT"

"$BIN/hips" run --model mlp --rounds 10 --history "$HISTORY" --out "$SCRATCH/run1" >/dev/null
"$BIN/hips" run --model mlp --rounds 10 --lr 0.02 --history "$HISTORY" --out "$SCRATCH/run2" >/dev/null
for language in en zh_CN; do
  suffix=$([ "$language" = en ] && echo "" || echo "-$language")
  for tab in design run charts history; do
    "$BIN/hips-studio" --history "$HISTORY" --language "$language" --show-run 1 --tab "$tab" \
      --screenshot "$OUT/$tab$suffix.png"
  done
  "$BIN/hips-studio" --history "$HISTORY" --language "$language" --tab history --select-runs 1,2 \
    --screenshot "$OUT/compare$suffix.png"
done
"$BIN/hips" report 1 --history "$HISTORY" --out "$SCRATCH/report.pdf" >/dev/null
pdftoppm -png -r 50 -f 1 -l 2 "$SCRATCH/report.pdf" "$OUT/report-page"
echo "wrote $(ls "$OUT" | tr '\n' ' ')"
