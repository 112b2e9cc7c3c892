#!/usr/bin/env bash
# hips simulate against the deployed run it stands for (issue 48): the same topology and options
# run for real on this machine (hips run: emulated WAN, slowdowns and all) and simulated on the
# virtual clock; prints each one's seconds to the target test accuracy (the first round at or above
# it, by the rows' elapsed), the simulated over the real, and the simulation's own wall time.
#   tests/bench/bench_simulate_fidelity.sh [BUILD_DIR] [TOPOLOGY] -- [hips run options]
#   env: TARGET (0.85)
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-build}; TOPOLOGY=${2:-resources/topologies/default.json}
shift 2 2>/dev/null; [ "${1:-}" = "--" ] && shift
TARGET=${TARGET:-0.85}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# Seconds to TARGET from a run's printed rows ("round test_acc loss ... elapsed"); "-" if never.
to_target() { awk -v t="$TARGET" '$1 ~ /^[0-9]+$/ && $2 != "-" && $2 + 0 >= t { sub(/s$/, "", $NF); print $NF; exit } END { }'; }

for command in run simulate; do
  start=$(date +%s.%N)
  "$BUILD_DIR/bin/hips" "$command" "$TOPOLOGY" "$@" --history "$work/history.db" --out "$work/$command" > "$work/$command.out" 2>&1
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f\n", b - a }' > "$work/$command.wall"
  grep -q "finished after" "$work/$command.out" || { echo "$command failed:"; tail -3 "$work/$command.out"; }
done
real=$(to_target < "$work/run.out"); sim=$(to_target < "$work/simulate.out")
printf "options: %s; target %s\n" "${*:-none}" "$TARGET"
printf "%-10s %12s %10s %10s\n" "" "to_target_s" "final_acc" "wall_s"
for command in run simulate; do
  printf "%-10s %12s %10s %10s\n" "$command" "$([ "$command" = run ] && echo "${real:--}" || echo "${sim:--}")" \
    "$(grep -o "final test accuracy [0-9.]*" "$work/$command.out" | awk '{print $4}')" "$(cat "$work/$command.wall")"
done
awk -v r="${real:-0}" -v s="${sim:-0}" 'BEGIN { if (r > 0 && s > 0) printf "simulated / real: %.2f\n", s / r }'
