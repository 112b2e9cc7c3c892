#!/usr/bin/env bash
# Differential privacy on the default topology (issue 47): final test accuracy at a target
# epsilon (delta 1e-5, "auto" noise: the multiplier that spends it over the run's rounds), noise
# at the party servers against at the workers, and without privacy; and the cost of clipping and
# noising: the seconds per round with privacy (at both tiers) over those without, measured in
# the same run of this script.
#   tests/bench/bench_privacy.sh [BUILD_DIR]   env: MODEL (cnn), ROUNDS (20), EPSILONS ("1 3 8"; at most 1000), CLIP (1.0)
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-build}
MODEL=${MODEL:-cnn}; ROUNDS=${ROUNDS:-20}; EPSILONS=${EPSILONS:-1 3 8}; CLIP=${CLIP:-1.0}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# One run of the default topology with `privacy` (a JSON object, or "" for none): prints
# "<final accuracy> <seconds per round> <noise multiplier>".
run() {
  python3 - "$1" > "$work/topology.json" <<'PY'
import json, sys
t = json.load(open("resources/topologies/default.json"))
if sys.argv[1]: t["training"]["privacy"] = json.loads(sys.argv[1])
print(json.dumps(t))
PY
  out=$("$BUILD_DIR/bin/hips" run "$work/topology.json" --history "$work/history.db" --model "$MODEL" --rounds "$ROUNDS" \
        --out "$work/run-$RANDOM")
  acc=$(grep -o "final test accuracy [0-9.]*" <<<"$out" | awk '{print $4}')
  seconds=$(grep -o "in [0-9.]* s:" <<<"$out" | awk '{print $2}')
  sigma=$(grep -o "noise multiplier [0-9.]*" <<<"$out" | head -1 | awk '{print $3}')
  printf "%s %.3f %s\n" "${acc:--}" "$(awk -v s="$seconds" -v r="$ROUNDS" 'BEGIN { print s / r }')" "${sigma:--}"
}

printf "model %s, %d rounds, delta 1e-5, clip norm %s\n" "$MODEL" "$ROUNDS" "$CLIP"
printf "%-8s %-8s %10s %10s %8s\n" "epsilon" "noise at" "final_acc" "s/round" "sigma"
read -r acc plain sigma <<<"$(run "")"
printf "%-8s %-8s %10s %10s %8s\n" "inf" "-" "$acc" "$plain" "-"
for eps in $EPSILONS; do
  for where in party worker; do
    read -r acc spr sigma <<<"$(run "{\"where\": \"$where\", \"clip_norm\": $CLIP, \"noise_multiplier\": \"auto\", \"delta\": 1e-5, \"target_epsilon\": $eps}")"
    printf "%-8s %-8s %10s %10s %8s\n" "$eps" "$where" "$acc" "$spr" "$sigma"
    [ "$where" = party ] && noised_party=$spr
  done
done
awk -v a="$noised_party" -v b="$plain" 'BEGIN { printf "seconds per round with noise at the parties over without: %.3f\n", a / b }'
