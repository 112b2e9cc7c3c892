#!/usr/bin/env bash
# Runs one libFuzzer target of the sanitized tree (scripts/sanitized-build.sh) for a bounded
# time over its seed corpus, or once over its regression inputs. Fails on any crash, leak,
# timeout, out-of-memory or sanitizer report; prints the executions count either way.
#
# Usage: tests/fuzz/run-fuzzer.sh <fuzzer binary> [seconds]       fuzz (default 5 s)
#        tests/fuzz/run-fuzzer.sh --regressions <fuzzer binary>    each regression input once
#   HIPS_FUZZ_SECONDS=N        overrides the fuzzing time
#   HIPS_FUZZ_ARTIFACTS=DIR    where crashing inputs go (default: <build>/fuzz-artifacts/<target>/)
# The seed corpus (tests/fuzz/corpus/<target>/) is copied to a temporary directory, so the
# source tree is never written; inputs found on the way are discarded with it.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
mode=fuzz
if [ "${1:-}" = --regressions ]; then mode=regressions; shift; fi
BIN=${1:?usage: run-fuzzer.sh [--regressions] <fuzzer binary> [seconds]}
NAME=$(basename "$BIN")
SECONDS_TO_RUN=${HIPS_FUZZ_SECONDS:-${2:-5}}
ARTIFACTS=${HIPS_FUZZ_ARTIFACTS:-$(cd "$(dirname "$BIN")/.." && pwd)/fuzz-artifacts}/$NAME
CORPUS=$HERE/corpus/$NAME
REGRESSIONS=$HERE/regressions/$NAME

[ -x "$BIN" ] || { echo "run-fuzzer: $BIN is not built (scripts/sanitized-build.sh)" >&2; exit 1; }
# halt_on_error and -fno-sanitize-recover: the first finding ends the run with a report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export QT_QPA_PLATFORM=offscreen

regression_inputs() { [ -d "$REGRESSIONS" ] && find "$REGRESSIONS" -type f ! -name '*.md' | sort; }

if [ "$mode" = regressions ]; then
  mapfile -t inputs < <(regression_inputs)
  if ((${#inputs[@]} == 0)); then echo "$NAME: no regression inputs"; exit 0; fi
  # libFuzzer runs each file given by path once and does not fuzz.
  "$BIN" "${inputs[@]}" 2>&1 | grep -v '^Running: \|^Executed .* in [0-9]* ms$'
  rc=${PIPESTATUS[0]}
  echo "$NAME: ${#inputs[@]} regression inputs, exit status $rc"
  exit "$rc"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/hips-fuzz-$NAME.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$ARTIFACTS"
[ -d "$CORPUS" ] && cp -r "$CORPUS/." "$work/corpus/"
seeds=$(find "$work/corpus" -type f | wc -l)
options=()
[ -f "$HERE/$NAME.dict" ] && options+=("-dict=$HERE/$NAME.dict")
# libFuzzer writes new inputs into the FIRST corpus directory only: the temporary copy. The
# regression inputs come second: they start every run and are never written.
corpora=("$work/corpus")
[ -n "$(regression_inputs)" ] && corpora+=("$REGRESSIONS")

# -close_fd_mask=2: the targets' own stderr (every rejected input is a line) is discarded;
# libFuzzer and the sanitizers still report on a copy of stderr.
"$BIN" -max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 \
  -artifact_prefix="$ARTIFACTS/" "${options[@]}" "${corpora[@]}" >"$work/log" 2>&1
rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -1)
found=$(find "$work/corpus" -type f | wc -l)
if ((rc == 0)) && ! grep -qE '^==[0-9]+==ERROR|runtime error:|^SUMMARY: ' "$work/log"; then
  echo "$NAME: ${execs:-?} executions in ${SECONDS_TO_RUN} s (${rate:-?}/s), corpus $seeds -> $found inputs, 0 crashes"
  echo "$NAME ${execs:-0} ${SECONDS_TO_RUN}" >"$ARTIFACTS/../$NAME.stats"
  exit 0
fi

tail -n 80 "$work/log"
echo "$NAME: FAILED (exit status $rc) after ${execs:-?} executions"
crash=$(ls -t "$ARTIFACTS"/{crash,leak,timeout,oom,slow-unit}-* 2>/dev/null | head -1)
if [ -n "$crash" ]; then
  echo "== the input, run once more with the target's own output: $crash"
  "$BIN" "$crash" 2>&1 | tail -n 60
  echo "== make it a regression test: mkdir -p tests/fuzz/regressions/$NAME && cp '$crash' tests/fuzz/regressions/$NAME/"
fi
exit 1
