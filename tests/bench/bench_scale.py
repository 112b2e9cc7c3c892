#!/usr/bin/env python3
"""Deployed runs at scale (issue 48): P parties x W workers, every role a process on this host.

For each shape it runs `hips run` (--model, mlp by default, on Fashion-MNIST, 5 rounds, 10 local
steps) and prints:
the wall seconds; joined, the seconds from launch until every worker has registered with its
scheduler (its data loaded, its model built); start-up, until every worker holds the first model
(its "startup" metric); the first round's row; the processes; and the memory of every process
of the run (the controller, the agent, the zygote and the trainers) summed, sampled every 0.2 s:
peak PSS (shared pages split among the processes sharing them, the honest total) and peak RSS.
Times are the median of --runs runs (3), memory from one more run, sampled. Each shape runs once
per --trainer-processes value (training.trainer_processes: auto, per_worker, per_host; default
auto, which runs a host's workers as threads of one shared trainer beyond 8). The last lines
compare the largest shape's start-up with the smallest's, for each.

    python3 tests/bench/bench_scale.py [--hips build/bin/hips] [--shapes 1x4,8x8] [--rounds 5] [--model mlp]
                                       [--trainer-processes auto,per_worker]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def topology(parties, workers, rounds, model, path, trainer_processes="auto"):
    central = {"id": "central", "central": True, "host": "local",
               "roles": {"global_scheduler": {"port": 9100}, "global_servers": [{"port": 9101}], "master_worker": {}}}
    others = [{"id": f"party{p}", "host": "local",
               "roles": {"scheduler": {"port": 10000 + 2 * p}, "servers": [{"port": 10001 + 2 * p}],
                         "workers": [{"count": workers}]}} for p in range(1, parties + 1)]
    t = {"format": "hips-topology", "version": 1, "name": f"scale-{parties}x{workers}",
         "hosts": [{"id": "local", "address": "127.0.0.1"}], "parties": [central] + others,
         "training": {"model": model, "rounds": rounds, "local_iters": 10, "batch_size": 32,
                      "learning_rate": 0.05, "eval_every": rounds, "trainer_processes": trainer_processes}}
    with open(path, "w") as f:
        json.dump(t, f)
    return path


def descendants(root):
    """Every process below root (by /proc's parent links), root included."""
    children = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(pid))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def memory_kb(pid):
    """(Pss, Rss) of one process in KiB, from smaps_rollup; zeros when it is gone."""
    values = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("Pss", "Rss"):
                    values[key] = int(rest.split()[0])
    except OSError:
        pass
    return values.get("Pss", 0), values.get("Rss", 0)


class Sampler(threading.Thread):
    """The peak of the summed memory of a process tree, every 0.2 s until stopped."""

    def __init__(self, root):
        super().__init__(daemon=True)
        self.root, self.done = root, threading.Event()
        self.pss = self.rss = self.processes = 0

    def run(self):
        while not self.done.wait(0.2):
            pids = descendants(self.root)
            sums = [memory_kb(p) for p in pids]
            self.pss = max(self.pss, sum(s[0] for s in sums))
            self.rss = max(self.rss, sum(s[1] for s in sums))
            self.processes = max(self.processes, len(pids))


def run(hips, topo, out, history, sample):
    """One run; its memory is sampled only when asked, since reading smaps_rollup of ~100
    processes every 0.2 s takes a tenth of this machine's CPU, which the timed runs must not lose."""
    start = time.time()
    proc = subprocess.Popen([hips, "run", topo, "--out", out, "--history", history],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sampler = Sampler(proc.pid)
    if sample:
        sampler.start()
    log = list(proc.stdout)
    code = proc.wait()
    wall = time.time() - start
    if sample:
        sampler.done.set()
        sampler.join()
    if code != 0:
        sys.exit(f"hips run {topo} failed:\n" + "".join(log[-15:]))
    with open(os.path.join(out, "metrics.jsonl")) as f:
        records = list(map(json.loads, f))
    startups = [r for r in records if r.get("kind") == "startup" and "first_model_s" in r]
    ready = max(r["t"] for r in startups) - start
    # Every worker registered with its scheduler (data loaded, model built): before the first
    # model goes out, which with many workers on two cores shares them with the first to train.
    joined = max(r["t"] for r in records if r.get("kind") == "rendezvous") - start
    accuracy = re.findall(r"final test accuracy ([0-9.]+)", "".join(log))
    return {"wall": wall, "ready": ready, "joined": joined, "processes": sampler.processes,
            "pss_mb": sampler.pss / 1024, "rss_mb": sampler.rss / 1024, "accuracy": accuracy[-1] if accuracy else "-"}


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--hips", default=os.path.join(ROOT, "build", "bin", "hips"))
    args.add_argument("--shapes", default="1x4,8x8")
    args.add_argument("--rounds", type=int, default=5)
    args.add_argument("--model", default="mlp")
    args.add_argument("--runs", type=int, default=3)
    args.add_argument("--trainer-processes", default="auto")
    a = args.parse_args()
    print(f"{'shape':>6} {'workers':>7} {'trainers':>10} {'wall_s':>7} {'joined_s':>8} {'ready_s':>8} {'procs':>6} "
          f"{'PSS_MB':>8} {'RSS_MB':>8} {'PSS/worker':>10} {'final_acc':>9}")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for shape in a.shapes.split(","):
            for mode in a.trainer_processes.split(","):
                parties, workers = map(int, shape.split("x"))
                topo = topology(parties, workers, a.rounds, a.model, os.path.join(tmp, f"{shape}-{mode}.json"), mode)
                history = os.path.join(tmp, "history.sqlite")
                runs = [run(a.hips, topo, os.path.join(tmp, f"run-{shape}-{mode}-{i}"), history, False) for i in range(a.runs)]
                sampled = run(a.hips, topo, os.path.join(tmp, f"run-{shape}-{mode}-memory"), history, True)
                r = dict(sampled, **{k: statistics.median(x[k] for x in runs) for k in ("wall", "ready", "joined")})
                n = parties * workers
                results.setdefault(mode, []).append((shape, r))
                print(f"{shape:>6} {n:7d} {mode:>10} {r['wall']:7.1f} {r['joined']:8.2f} {r['ready']:8.2f} {r['processes']:6d} "
                      f"{r['pss_mb']:8.0f} {r['rss_mb']:8.0f} {r['pss_mb'] / n:10.1f} {r['accuracy']:>9}", flush=True)
    for mode, rows in results.items():
        if len(rows) > 1:
            (small, s), (large, l) = rows[0], rows[-1]
            print(f"start-up {large} / {small} ({mode}): {l['ready'] / s['ready']:.2f} until every worker holds the first model "
                  f"(goal <= 2), {l['joined'] / s['joined']:.2f} until every worker has joined")
    return 0


if __name__ == "__main__":
    sys.exit(main())
