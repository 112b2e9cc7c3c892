#!/usr/bin/env bash
# Time to accuracy under a slow WAN (issue 14): every party's link to the central party emulated
# at a bandwidth and a latency (`hips run --wan MBPS,MS`), for the flat single-layer server without
# compression against the two-layer one without and with each lossy codec. Prints, per bandwidth,
# each run's time to the target accuracy and its bytes across parties, and the flat run's time over
# the best compressed one's.
#   tests/bench/bench_wan.sh [BUILD_DIR]    env: MODEL (cnn), ROUNDS (20), TARGET (0.85),
#                                                BANDWIDTHS ("5 20 100" Mbit/s), LATENCY (50 ms), TOPOLOGY
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-build}
MODEL=${MODEL:-cnn}; ROUNDS=${ROUNDS:-20}; TARGET=${TARGET:-0.85}
BANDWIDTHS=${BANDWIDTHS:-5 20 100}; LATENCY=${LATENCY:-50}
TOPOLOGY=${TOPOLOGY:-resources/topologies/default.json}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# One run: prints "<seconds to TARGET or never> <MB across parties> <final accuracy>".
run() {
  "$BUILD_DIR/bin/hips" run --history "$work/history.db" --model "$MODEL" --rounds "$ROUNDS" --out "$work/run-$RANDOM" "$@" |
    awk -v target="$TARGET" '
      /^ *[0-9]+ +[0-9.-]+ / { e = $NF; sub("s", "", e); if (!hit && $2 != "-" && $2 + 0 >= target) hit = e; across = $6 }
      /final test accuracy/ { match($0, /final test accuracy [0-9.]+/); acc = substr($0, RSTART + 20, RLENGTH - 20) }
      END { printf "%s %s %s\n", hit ? hit : "never", across, acc }'
}

printf "model %s, %d rounds, latency %s ms, time to test accuracy %s\n" "$MODEL" "$ROUNDS" "$LATENCY" "$TARGET"
printf "%-8s %-22s %12s %12s %10s\n" "Mbit/s" "layout" "to_target_s" "across_MB" "final_acc"
for bw in $BANDWIDTHS; do
  declare -A t=()
  for variant in "flat none" "two_layer none" "two_layer 2bit" "two_layer topk"; do
    read -r layout codec <<<"$variant"
    args=(--wan "$bw,$LATENCY" --compression "$codec")
    [ "$layout" = flat ] && args+=(--flat)
    read -r hit mb acc < <(run "${args[@]}")
    t[$layout-$codec]=$hit
    printf "%-8s %-22s %12s %12s %10s\n" "$bw" "$layout+$codec" "$hit" "$mb" "$acc"
  done
  best=never
  for c in 2bit topk; do
    v=${t[two_layer-$c]}
    if [ "$v" != never ] && { [ "$best" = never ] || awk -v a="$v" -v b="$best" 'BEGIN { exit !(a < b) }'; }; then best=$v; fi
  done
  if [ "${t[flat-none]}" != never ] && [ "$best" != never ]; then
    awk -v f="${t[flat-none]}" -v b="$best" -v bw="$bw" \
      'BEGIN { printf "%s Mbit/s: two-layer with compression reaches the target %.1fx sooner than flat without (goal >= 4x at 5 Mbit/s)\n", bw, f / b }'
  fi
done
