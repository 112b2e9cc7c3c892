#!/usr/bin/env bash
# Secure aggregation on the default topology (issue 47): the seconds per round and the global
# server's round time, one model to the next (its log's "aggregated in"), with secure
# aggregation against without, runs alternating so that the machine's drift falls on both; the
# ratio of the medians is the overhead. Also the final test accuracy of each run.
#   tests/bench/bench_secureagg.sh [BUILD_DIR]   env: MODEL (cnn), ROUNDS (20), REPEATS (2)
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-build}
MODEL=${MODEL:-cnn}; ROUNDS=${ROUNDS:-20}; REPEATS=${REPEATS:-2}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# One run; prints "<final accuracy> <seconds per round> <mean aggregation seconds>".
run() {
  python3 - "$1" > "$work/topology.json" <<'PY'
import json, sys
t = json.load(open("resources/topologies/default.json"))
if sys.argv[1] == "secure": t["training"]["secure_aggregation"] = True
print(json.dumps(t))
PY
  dir="$work/run-$RANDOM"
  out=$("$BUILD_DIR/bin/hips" run "$work/topology.json" --history "$work/history.db" --model "$MODEL" --rounds "$ROUNDS" --out "$dir")
  acc=$(grep -o "final test accuracy [0-9.]*" <<<"$out" | awk '{print $4}')
  seconds=$(grep -o "in [0-9.]* s:" <<<"$out" | awk '{print $2}')
  aggregate=$(grep -o "aggregated in [0-9.]*" "$dir/logs/central-global_server0.log" | awk '{ s += $3; n++ } END { if (n) printf "%.3f", s / n; else print "-" }')
  printf "%s %.3f %s\n" "${acc:--}" "$(awk -v s="$seconds" -v r="$ROUNDS" 'BEGIN { print s / r }')" "$aggregate"
}

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

printf "model %s, %d rounds, %d runs of each, alternating\n" "$MODEL" "$ROUNDS" "$REPEATS"
printf "%-8s %10s %10s %12s\n" "secure" "final_acc" "s/round" "aggregate_s"
: > "$work/clear"; : > "$work/secure"
for i in $(seq "$REPEATS"); do
  for kind in clear secure; do
    read -r acc spr agg <<<"$(run "$kind")"
    printf "%-8s %10s %10s %12s\n" "$([ "$kind" = secure ] && echo on || echo off)" "$acc" "$spr" "$agg"
    echo "$spr" >> "$work/$kind"
  done
done
awk -v a="$(median < "$work/secure")" -v b="$(median < "$work/clear")" \
  'BEGIN { printf "seconds per round with secure aggregation over without (medians): %.3f\n", a / b }'
