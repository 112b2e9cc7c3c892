#!/usr/bin/env bash
# Rounds to accuracy without a WAN (issue 43): the default topology with each codec across parties
# at its defaults (warm-up included) against the run without one, on several seeds. Prints, per
# seed and codec, the first round whose test accuracy reaches the target, its time, and the gap
# in rounds to `none`'s (the goal: each lossy codec within 2 rounds).
#   tests/bench/bench_codec_rounds.sh [BUILD_DIR]   env: MODEL (cnn), ROUNDS (20), TARGET (0.85),
#                                                        SEEDS ("1 2 3"), CODECS ("none fp16 2bit topk"), TOPOLOGY
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-build}
MODEL=${MODEL:-cnn}; ROUNDS=${ROUNDS:-20}; TARGET=${TARGET:-0.85}
SEEDS=${SEEDS:-1 2 3}; CODECS=${CODECS:-none fp16 2bit topk}
TOPOLOGY=${TOPOLOGY:-resources/topologies/default.json}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# One run: prints "<round reaching TARGET or never> <its seconds or -> <MB across parties> <final accuracy>".
run() {
  "$BUILD_DIR/bin/hips" run "$TOPOLOGY" --history "$work/history.db" --model "$MODEL" --rounds "$ROUNDS" \
    --out "$work/run-$RANDOM$RANDOM" "$@" |
    awk -v target="$TARGET" '
      /^ *[0-9]+ +[0-9.-]+ / { e = $NF; sub("s", "", e); if (!round && $2 != "-" && $2 + 0 >= target) { round = $1; at = e } across = $6 }
      /final test accuracy/ { match($0, /final test accuracy [0-9.]+/); acc = substr($0, RSTART + 20, RLENGTH - 20) }
      END { printf "%s %s %s %s\n", round ? round : "never", round ? at : "-", across, acc }'
}

printf "model %s, %d rounds, rounds to test accuracy %s, no WAN\n" "$MODEL" "$ROUNDS" "$TARGET"
printf "%-5s %-6s %8s %8s %10s %10s %6s\n" "seed" "codec" "round" "secs" "across_MB" "final_acc" "gap"
worst=()
for seed in $SEEDS; do
  base=never
  for codec in $CODECS; do
    read -r round at mb acc < <(run --seed "$seed" --compression "$codec")
    [ "$codec" = none ] && base=$round
    gap=-
    if [ "$codec" != none ] && [ "$base" != never ]; then
      if [ "$round" = never ]; then gap=never; else gap=$((round - base)); fi
    fi
    printf "%-5s %-6s %8s %8s %10s %10s %6s\n" "$seed" "$codec" "$round" "$at" "$mb" "$acc" "$gap"
    [ "$gap" != - ] && worst+=("$codec:$gap")
  done
done
printf "%s\n" "${worst[@]}" | awk -F: '
  { c = $1; if (!(c in w)) w[c] = $2; else if (w[c] != "never" && ($2 == "never" || $2 + 0 > w[c] + 0)) w[c] = $2 }
  END { for (c in w) printf "%s: at most %s rounds behind none (goal <= 2)\n", c, w[c] }'
