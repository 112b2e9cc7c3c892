#!/bin/sh
# The soak bench (issue 50): an hour of the default topology under fault_policy continue with a
# random kill -9 every 60-120 s; see soak.py for what it checks and prints.
#   tests/bench/soak.sh [--minutes 60] [--every 60,120] [--seed N] [--hips build/bin/hips]
exec python3 "$(dirname "$0")/soak.py" "$@"
