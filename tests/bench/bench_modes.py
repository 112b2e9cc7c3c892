#!/usr/bin/env python3
"""ESync's figure on this machine: every mode on the same heterogeneous devices and the same
wall-clock budget (issue 11).

Four training workers, two per party, at slowdowns 1 and 4 (party1) and 1 and 8 (party2): each
local step of a worker takes that multiple of its measured compute time, as on a slower device.
Fashion-MNIST, the CNN, batch 64, learning rate 0.05, momentum 0.9, IID shards, the shipped
default topology's ports. Each mode runs `hips run` until the budget is spent (then it is stopped
with SIGINT, as Stop all does), evaluating every round; the clock starts when the command starts.

Per mode: the time until a test accuracy >= 0.8 was known, the best accuracy within the budget,
and the rounds done. Settings that differ by mode (printed with the table):
  - a round is local_iters=50 local steps for fedavg, asgd, dcasgd and local; hfa syncs parties
    every k1=25 steps and the global server every k2=2 party syncs (50 steps a round);
  - ssgd and esync count a round as local_iters=10 synchronisations (one step of every worker
    for ssgd; one step of the slowest for esync), so that they are evaluated as often;
  - esync runs with its defaults (epsilon: a tenth of the slowest worker's step time, measured;
    ESync's own 0.5 s would let every device here stop after one step); --epsilon sets one.
Goal: esync reaches 0.8 at least 3x sooner than ssgd, and its best accuracy is within 0.01 of
local's.

    python3 tests/bench/bench_modes.py [--hips build/bin/hips] [--budget 60] [--modes esync,ssgd,...]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TARGET = 0.8
MODES = ["esync", "ssgd", "fedavg", "asgd", "dcasgd", "hfa", "local"]
SLOWDOWNS = {"party1": [1, 4], "party2": [1, 8]}
EPSILON = None  # esync's epsilon: None keeps the default


def topology(mode):
    with open(os.path.join(ROOT, "resources", "topologies", "default.json")) as f:
        t = json.load(f)
    for party in t["parties"]:
        if party["id"] in SLOWDOWNS:
            party["roles"]["workers"] = [{"count": 1, "slowdown": s} for s in SLOWDOWNS[party["id"]]]
    training = t["training"]
    training.update({"mode": mode, "rounds": 100000, "eval_every": 1})
    if mode in ("ssgd", "esync"):
        training["local_iters"] = 10
    if mode == "esync" and EPSILON is not None:
        training["epsilon"] = EPSILON
    return t


def run_mode(hips, mode, budget, workdir):
    path = os.path.join(workdir, mode + ".json")
    with open(path, "w") as f:
        json.dump(topology(mode), f)
    out = os.path.join(workdir, mode)
    start = time.time()
    p = subprocess.Popen([hips, "run", path, "--out", out, "--history", os.path.join(workdir, "history.sqlite")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        p.wait(timeout=budget)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
        p.wait(timeout=60)
    reached, best, rounds, steps = None, 0.0, 0, {}
    with open(os.path.join(out, "metrics.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") == "eval" and r["t"] - start <= budget:
                best = max(best, r["test_acc"])
                rounds = max(rounds, r["round"])
                if reached is None and r["test_acc"] >= TARGET:
                    reached = r["t"] - start
            if r.get("kind") == "train" and "steps_per_push" in r:
                steps.setdefault(r["node"], []).append(r["steps_per_push"])
    return {"mode": mode, "time_to_target_s": reached, "best_acc": best, "rounds": rounds,
            "steps_per_push": {n: sum(v) / len(v) for n, v in sorted(steps.items())}}


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--hips", default=os.path.join(ROOT, "build", "bin", "hips"))
    args.add_argument("--budget", type=float, default=60.0, help="seconds per mode")
    args.add_argument("--modes", default=",".join(MODES))
    args.add_argument("--json", help="also write the results here")
    args.add_argument("--epsilon", type=float, help="esync's epsilon in seconds (default: the mode's)")
    a = args.parse_args()
    global EPSILON
    EPSILON = a.epsilon
    results = []
    with tempfile.TemporaryDirectory() as workdir:
        for mode in a.modes.split(","):
            results.append(run_mode(a.hips, mode, a.budget, workdir))
            r = results[-1]
            print(f"{mode}: done", file=sys.stderr, flush=True)
    print(f"\nslowdowns {SLOWDOWNS}, budget {a.budget:.0f} s per mode, target test accuracy {TARGET}\n")
    print(f"{'mode':<11} {'time to ' + str(TARGET):>12} {'best acc':>9} {'rounds':>7}  steps per push (ESync: per sync)")
    for r in results:
        t = f"{r['time_to_target_s']:.1f} s" if r["time_to_target_s"] is not None else "not reached"
        steps = ", ".join(f"{n.split('/')[0]}/{n.split('/')[1][-1]} {v:.1f}" for n, v in r["steps_per_push"].items())
        print(f"{r['mode']:<11} {t:>12} {r['best_acc']:>9.4f} {r['rounds']:>7}  {steps if r['mode'] == 'esync' else ''}")
    by = {r["mode"]: r for r in results}
    if "esync" in by and "ssgd" in by:
        e, s = by["esync"]["time_to_target_s"], by["ssgd"]["time_to_target_s"]
        if e is not None:
            ratio = (s / e) if s is not None else float("inf")
            print(f"\nesync reaches {TARGET} {ratio:.1f}x sooner than ssgd"
                  + ("" if s is not None else f" (ssgd did not reach it within {a.budget:.0f} s)") + " (goal >= 3x)")
    if "esync" in by and "local" in by:
        print(f"esync's best accuracy {by['esync']['best_acc']:.4f} vs local's {by['local']['best_acc']:.4f}: "
              f"difference {by['local']['best_acc'] - by['esync']['best_acc']:+.4f} (goal <= 0.01)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
