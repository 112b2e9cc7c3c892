#!/usr/bin/env bash
# hips simulate at scale (issue 48): P parties x W workers (mlp on Fashion-MNIST, 10 local steps a
# round), simulated in one process; prints the wall seconds, the peak memory (the simulator's
# resident set, the controller's), the virtual seconds, the final accuracy and the simulated
# clients per second of wall time (worker-rounds trained / wall seconds).
#   tests/bench/bench_simulate.sh [BUILD_DIR]   env: SHAPES ("2x2 8x8 20x50"), ROUNDS (5),
#   CLIENTS (clients_per_round, 0: all), MODEL (mlp), LOCAL_ITERS (10)
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-build}
SHAPES=${SHAPES:-"2x2 8x8 20x50"}; ROUNDS=${ROUNDS:-5}; CLIENTS=${CLIENTS:-0}; MODEL=${MODEL:-mlp}; LOCAL_ITERS=${LOCAL_ITERS:-10}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# A topology of $1 parties of $2 workers each, all on this host.
topology() {
  local parties=$1 workers=$2 p
  printf '{"format":"hips-topology","version":1,"name":"sim-%sx%s","hosts":[{"id":"local","address":"127.0.0.1"}],"parties":[' "$parties" "$workers"
  printf '{"id":"central","central":true,"host":"local","roles":{"global_scheduler":{"port":9100},"global_servers":[{"port":9101}],"master_worker":{}}}'
  for p in $(seq "$parties"); do
    printf ',{"id":"party%d","host":"local","roles":{"scheduler":{"port":%d},"servers":[{"port":%d}],"workers":[{"count":%d}]}}' \
      "$p" $((10000 + 2 * p)) $((10001 + 2 * p)) "$workers"
  done
  printf '],"training":{"model":"%s","rounds":%d,"local_iters":%d,"batch_size":32,"learning_rate":0.05,"eval_every":%d,"clients_per_round":%s}}\n' \
    "$MODEL" "$ROUNDS" "$LOCAL_ITERS" "$ROUNDS" "$CLIENTS"
}

printf "model %s, %d rounds, %d local steps, clients_per_round %s\n" "$MODEL" "$ROUNDS" "$LOCAL_ITERS" "$CLIENTS"
printf "%-8s %8s %8s %10s %10s %10s %10s %12s\n" "shape" "workers" "wall_s" "peak_MB" "virtual_s" "final_acc" "trained" "clients/s"
for shape in $SHAPES; do
  parties=${shape%x*}; workers=${shape#*x}
  topology "$parties" "$workers" > "$work/t.json"
  dir="$work/run-$shape"
  start=$(date +%s.%N)
  # The simulator's peak resident set: hips-trainer is the controller's child, so GNU time's
  # report for hips covers the larger of the two (ru_maxrss of the process and its children).
  out=$(/usr/bin/time -f "maxrss_kb %M" "$BUILD_DIR/bin/hips" simulate "$work/t.json" --history "$work/history.db" --out "$dir" 2>&1)
  end=$(date +%s.%N)
  acc=$(grep -o "final test accuracy [0-9.]*" <<<"$out" | awk '{print $4}')
  virtual=$(grep -o "in [0-9.]* s:" <<<"$out" | awk '{print $2}')
  rss=$(grep -o "maxrss_kb [0-9]*" <<<"$out" | awk '{print $2}')
  trained=$(grep -c '"kind":"train"' "$dir/metrics.jsonl")
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  printf "%-8s %8d %8s %10.0f %10s %10s %10d %12.1f\n" "$shape" $((parties * workers)) "$wall" "$(awk -v k="${rss:-0}" 'BEGIN { print k / 1024 }')" \
    "${virtual:--}" "${acc:--}" "$trained" "$(awk -v n="$trained" -v w="$wall" 'BEGIN { print n / w }')"
  grep -q "finished after" <<<"$out" || { echo "$out" | tail -5; }
done
