#!/usr/bin/env python3
"""The robust rules against the attacks they are judged by (issue 43): each rule's final test
accuracy with no attack, and with 3 of 15 workers running ALIE ("a little is enough", Baruch et
al. 2019) or IPM (inner-product manipulation, Xie et al. 2020), on this machine.

The shipped default topology scaled to 15 training workers: three parties of five. The party
servers sum their workers' pushes (fedavg) and, since the global rule needs the individual
updates, relay them: the global rule sees all 15. Each round a seeded draw of 3 workers lies
(run-wide adversary, count 3); the colluding attacks are simulated where their pushes arrive,
with the honest updates of the round (the papers' omniscient attacker). byzantine_f 3 for krum,
multi_krum and bulyan (n = 15 = 4f + 3), trim_beta 0.2 (3 values cut at each end of 15).
Fashion-MNIST, the mlp, batch 32, learning rate 0.05, local_iters 20, 8 rounds.

    python3 tests/bench/bench_attacks.py [--hips build/bin/hips] [--rules median,krum] [--attacks none,alie,ipm]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
RULES = ["fedavg", "mean", "median", "trimmed_mean", "geometric_median", "krum", "multi_krum", "bulyan"]
ATTACKS = ["none", "alie", "ipm"]
LIARS = 3


def topology(rule, attack):
    with open(os.path.join(ROOT, "resources", "topologies", "default.json")) as f:
        t = json.load(f)
    parties = [p for p in t["parties"] if not p.get("central")]
    while len(parties) < 3:  # a third party like the others, on ports of its own
        extra = json.loads(json.dumps(parties[-1]))
        extra["id"] = "party%d" % (len(parties) + 1)
        extra["roles"]["scheduler"]["port"] += 100
        for s in extra["roles"]["servers"]:
            s["port"] += 100
        t["parties"].append(extra)
        parties.append(extra)
    for p in parties:
        p["roles"]["workers"] = [{"count": 5}]
    training = t["training"]
    training.update({"model": "mlp", "rounds": 8, "local_iters": 20, "batch_size": 32, "learning_rate": 0.05,
                     "eval_every": 8, "aggregation": rule})
    if rule in ("krum", "multi_krum", "bulyan"):
        training["byzantine_f"] = LIARS
    if rule == "trimmed_mean":
        training["trim_beta"] = 0.2
    if attack != "none":
        training["adversary"] = {"kind": attack, "count": LIARS}
    return t


def run(hips, rule, attack, workdir):
    name = "%s-%s" % (rule, attack)
    path = os.path.join(workdir, name + ".json")
    with open(path, "w") as f:
        json.dump(topology(rule, attack), f)
    start = time.monotonic()
    p = subprocess.run([hips, "run", path, "--out", os.path.join(workdir, name), "--history",
                        os.path.join(workdir, "history.sqlite")], capture_output=True, text=True)
    seconds = time.monotonic() - start
    m = re.search(r"final test accuracy (\d\.\d+)", p.stdout)
    if p.returncode != 0 or not m:
        sys.stderr.write(p.stdout[-2000:] + p.stderr[-2000:])
        return None, seconds
    return float(m.group(1)), seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hips", default=os.path.join(ROOT, "build", "bin", "hips"))
    ap.add_argument("--rules", default=",".join(RULES))
    ap.add_argument("--attacks", default=",".join(ATTACKS))
    a = ap.parse_args()
    rules, attacks = a.rules.split(","), a.attacks.split(",")
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench_attacks-") as workdir:
        for rule in rules:
            for attack in attacks:
                acc, seconds = run(a.hips, rule, attack, workdir)
                results[(rule, attack)] = acc
                print("%-17s %-5s %s  (%.0f s)" % (rule, attack, "failed" if acc is None else "%.4f" % acc, seconds), flush=True)
    print("\nfinal test accuracy, 15 workers, %d lying each round:\n" % LIARS)
    print("| rule | " + " | ".join(attacks) + " |")
    print("|---|" + "---|" * len(attacks))
    for rule in rules:
        cells = ["failed" if results[(rule, x)] is None else "%.4f" % results[(rule, x)] for x in attacks]
        print("| `%s` | %s |" % (rule, " | ".join(cells)))
    return 0 if all(v is not None for v in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
