#!/usr/bin/env bash
# hips simulate against the deployed run it stands for (issue 48): the same topology and options
# run for real on this machine (hips run: emulated WAN, slowdowns and all) and simulated on the
# virtual clock; prints each one's seconds to the target test accuracy (the first round at or above
# it, by the rows' elapsed), the simulated over the real, and the simulation's own wall time.
# Both are run REPEAT times, alternately, and their medians compared: on this shared 2-core
# machine one run's time to a target varies by up to 30 % from the next one's.
#   tests/bench/bench_simulate_fidelity.sh [BUILD_DIR] [TOPOLOGY] -- [hips run options]
#   env: TARGET (0.85), REPEAT (1)
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-build}; TOPOLOGY=${2:-resources/topologies/default.json}
shift $(( $# < 2 ? $# : 2 )); [ "${1:-}" = "--" ] && shift
TARGET=${TARGET:-0.85}; REPEAT=${REPEAT:-1}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# Seconds to TARGET from a run's printed rows ("round test_acc loss ... elapsed"); "-" if never.
to_target() { awk -v t="$TARGET" '$1 ~ /^[0-9]+$/ && $2 != "-" && $2 + 0 >= t { sub(/s$/, "", $NF); print $NF; exit } END { }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for i in $(seq "$REPEAT"); do
  for command in run simulate; do
    start=$(date +%s.%N)
    "$BUILD_DIR/bin/hips" "$command" "$TOPOLOGY" "$@" --history "$work/history.db" --out "$work/$command-$i" > "$work/$command.out" 2>&1
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f\n", b - a }' >> "$work/$command.wall"
    grep -q "finished after" "$work/$command.out" || { echo "$command failed:"; tail -3 "$work/$command.out"; }
    to_target < "$work/$command.out" >> "$work/$command.target"
    grep -o "final test accuracy [0-9.]*" "$work/$command.out" | awk '{print $4}' > "$work/$command.final"
  done
done
printf "options: %s; target %s; medians of %d\n" "${*:-none}" "$TARGET" "$REPEAT"
printf "%-10s %12s %10s %10s   %s\n" "" "to_target_s" "final_acc" "wall_s" "each run's to_target_s"
for command in run simulate; do
  printf "%-10s %12s %10s %10s   %s\n" "$command" "$(median < "$work/$command.target")" "$(cat "$work/$command.final")" \
    "$(median < "$work/$command.wall")" "$(tr '\n' ' ' < "$work/$command.target")"
done
real=$(median < "$work/run.target"); sim=$(median < "$work/simulate.target")
awk -v r="$real" -v s="$sim" 'BEGIN { if (r > 0 && s > 0) printf "simulated / real: %.2f\n", s / r }'
