#!/usr/bin/env python3
"""Start-up of a run (issue 10): how it grows with the trainers on a host, and how steady it is.

1. The default topology with 1 and with 8 workers per party (2 x 1, 2 x 8), `--rounds 1`, a few
   runs each, with the trainers forked by the agent's zygote and (the baseline) started afresh:
   the time from launching `hips run` until every worker holds the first model (its
   "startup" metric), and the phases of the slowest trainer (process_s: exec and library
   loading; data_s: data set and model; join_s: rendezvous; first_model_s). Goal: 2 x 8 within
   1.5x of 2 x 1.
2. The default topology, `--rounds 1`, N runs in a row: the time from launch to the first round's
   row. Goal: every run within 2x the median.

    python3 tests/bench/bench_startup.py [--hips build/bin/hips] [--runs 3] [--steady 30]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def topology(workers, path):
    with open(os.path.join(ROOT, "resources", "topologies", "default.json")) as f:
        t = json.load(f)
    for party in t["parties"]:
        if party["roles"].get("workers"):
            party["roles"]["workers"] = [{"count": workers}]
    t["name"] = f"default-2x{workers}"
    with open(path, "w") as f:
        json.dump(t, f)
    return path


def run(hips, topo, out, history, zygote=True):
    """(seconds to every worker's first model, seconds to round 1's row, slowest trainer's phases)"""
    start = time.time()
    env = dict(os.environ, HIPS_TRAINER_ZYGOTE="1" if zygote else "0")
    proc = subprocess.Popen([hips, "run", topo, "--rounds", "1", "--out", out, "--history", history],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    first_round = None
    for line in proc.stdout:
        if first_round is None and re.match(r"\s+1\s+[01]\.\d{4}\s", line):
            first_round = time.time() - start
    if proc.wait() != 0:
        sys.exit(f"hips run {topo} failed")
    with open(os.path.join(out, "metrics.jsonl")) as f:
        startups = [r for r in map(json.loads, f) if r.get("kind") == "startup" and "first_model_s" in r]
    slowest = max(startups, key=lambda r: r["t"])
    phases = {k: round(v, 2) for k, v in slowest.items() if k.endswith("_s")}
    return slowest["t"] - start, first_round, phases


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--hips", default=os.path.join(ROOT, "build", "bin", "hips"))
    args.add_argument("--runs", type=int, default=3)
    args.add_argument("--steady", type=int, default=30)
    a = args.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # Trainers forked by the agent's zygote (the default), and, as the baseline, each started
        # afresh (HIPS_TRAINER_ZYGOTE=0), which loads LibTorch once per trainer.
        for zygote in (True, False):
            medians = {}
            label = "zygote" if zygote else "afresh"
            print(f"trainers {label}: {'ready_s (median of %d)' % a.runs:>22}   slowest trainer's phases (last run)")
            for workers in (1, 8):
                topo = topology(workers, os.path.join(tmp, f"t{workers}.json"))
                results = [run(a.hips, topo, os.path.join(tmp, f"r{label}{workers}-{i}"), os.path.join(tmp, "h.sqlite"), zygote)
                           for i in range(a.runs)]
                medians[workers] = statistics.median(r[0] for r in results)
                print(f"  2 x {workers:<4} {medians[workers]:29.2f}   {results[-1][2]}", flush=True)
            print(f"  2 x 8 / 2 x 1: {medians[8] / medians[1]:.2f}" + (" (goal <= 1.5)" if zygote else ""))
        if a.steady:
            topo = os.path.join(ROOT, "resources", "topologies", "default.json")
            firsts = [run(a.hips, topo, os.path.join(tmp, f"s{i}"), os.path.join(tmp, "h.sqlite"))[1] for i in range(a.steady)]
            median = statistics.median(firsts)
            print(f"{a.steady} runs to round 1: median {median:.2f} s, min {min(firsts):.2f}, max {max(firsts):.2f}, "
                  f"max/median {max(firsts) / median:.2f} (goal <= 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
