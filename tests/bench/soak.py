#!/usr/bin/env python3
"""The soak bench (issue 50; not a CI test): the default topology trains for an hour under
fault_policy continue while a random process is killed (SIGKILL) every 60-120 s, and the run must
take every kill in its stride.

Killed, each kind once in every eight kills in a random order: a worker, a party server, a party scheduler, the global scheduler, the
global server, the master, the local agent (which its controller starts again with every role it
had), and the controller itself (then `hips attach RUN_DIR` takes the run up). An attached
controller does not restart agents, so after the first controller kill the agent is not killed.
The state service is not restartable (and fedavg has none), so it is never killed.

After each kill the bench waits for a new aggregated round (at most --patience seconds): a kill
survived is one the run came back from. At the end it stops the run (SIGINT, as Ctrl-C) and
prints: each kind's kills and survivals and the slowest recovery; the rounds aggregated; the
history's aggregate rows against the rounds in metrics.jsonl (none missing, none twice); and the
resident memory of each long-lived process at the end of the warm-up and at the end (growth
beyond 10 % fails). Exit status 0 when every check holds.

    tests/bench/soak.sh [--minutes 60] [--every 60,120] [--seed N] [--model cnn] [--hips build/bin/hips]

Copy build/bin/{hips,hips-agent,hips-trainer} elsewhere and pass --hips there if you rebuild
while it runs.
"""
import argparse
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KINDS = ["worker", "party server", "party scheduler", "global scheduler", "global server", "master", "agent", "controller"]


def free_ports(n):
    """Ports the kernel hands out now (held together, so they differ)."""
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def write_topology(path, model):
    with open(os.path.join(ROOT, "resources", "topologies", "default.json")) as f:
        t = json.load(f)
    roles = [r for p in t["parties"] for v in p["roles"].values() for r in (v if isinstance(v, list) else [v])
             if isinstance(r, dict) and "port" in r]
    for role, port in zip(roles, free_ports(len(roles))):
        role["port"] = port
    t["training"].update(model=model, rounds=1000000, fault_policy="continue", max_restarts=100, heartbeat_timeout_s=5)
    t["name"] = "soak"
    with open(path, "w") as f:
        json.dump(t, f)


class Processes:
    """The run's processes, found by the tag in their environment, named by what they run."""

    def __init__(self, tag):
        self.marker = f"HIPS_SOAK_TAG={tag}".encode()

    @staticmethod
    def name(argv):
        if len(argv) > 1 and os.path.basename(argv[0]) == "hips" and argv[1] in ("run", "attach"):
            return "controller"
        if "--node" in argv:
            return argv[argv.index("--node") + 1]
        if len(argv) > 1 and argv[1] == "daemon":
            return "agent"
        if len(argv) > 1 and argv[1] == "zygote":
            return "zygote"
        return None

    def list(self):
        """{name: pid}"""
        found = {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    if self.marker not in f.read().split(b"\0"):
                        continue
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
                with open(f"/proc/{pid}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                        continue
            except OSError:
                continue
            if name := self.name(argv):
                found[name] = int(pid)
        return found

    @staticmethod
    def rss_mb(pid):
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return None


def victims(kind, names):
    ends = {"worker": "worker", "party server": "/server", "party scheduler": "/scheduler",
            "global scheduler": "/global_scheduler", "global server": "/global_server", "master": "/master_worker"}
    if kind in ("agent", "controller"):
        return [n for n in names if n == kind]
    return [n for n in names if "/" in n and n.split("/", 1)[1].startswith(ends[kind].lstrip("/"))
            and not (kind == "worker" and n.endswith("master_worker"))]


class Rounds:
    """The newest aggregated round in metrics.jsonl, read as it grows (an attach cuts it back)."""

    def __init__(self, path):
        self.path, self.offset, self.newest, self.rest = path, 0, 0, b""

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size < self.offset:
                    self.offset, self.rest = 0, b""
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return self.newest
        self.offset += len(data)
        lines = (self.rest + data).split(b"\n")
        self.rest = lines.pop()
        for line in lines:
            if b'"aggregate"' in line:
                try:
                    self.newest = max(self.newest, int(json.loads(line).get("round", 0)))
                except ValueError:
                    pass
        return self.newest


def aggregated_rounds(metrics_path):
    with open(metrics_path, "rb") as f:
        return [json.loads(l)["round"] for l in f if b'"aggregate"' in l and b"global_server" in l]


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--hips", default=os.path.join(ROOT, "build", "bin", "hips"))
    args.add_argument("--minutes", type=float, default=60)
    args.add_argument("--every", default="60,120", help="seconds between kills: MIN,MAX")
    args.add_argument("--warmup", type=float, default=60, help="seconds before the first RSS sample")
    args.add_argument("--patience", type=float, default=180, help="seconds a kill may take to recover from")
    args.add_argument("--seed", type=int, default=int(time.time()))
    args.add_argument("--model", default="cnn")
    args.add_argument("--keep", help="keep the run directory and history here")
    a = args.parse_args()
    low, high = map(float, a.every.split(","))
    rng = random.Random(a.seed)
    work = a.keep or tempfile.mkdtemp(prefix="hips-soak-")
    os.makedirs(work, exist_ok=True)
    topo, run_dir, history = (os.path.join(work, n) for n in ("soak.json", "run", "history.sqlite"))
    write_topology(topo, a.model)
    tag = f"{os.getpid()}-{a.seed}"
    env = dict(os.environ, HIPS_SOAK_TAG=tag)
    log = open(os.path.join(work, "controller.log"), "ab")
    print(f"soak: {a.minutes:g} min of the default topology ({a.model}), a kill every {low:g}-{high:g} s, seed {a.seed}, "
          f"in {work}", flush=True)

    def controller(argv):
        return subprocess.Popen([a.hips] + argv + ["--history", history], stdout=log, stderr=subprocess.STDOUT, env=env)

    ctl = controller(["run", topo, "--out", run_dir])
    procs, rounds = Processes(tag), Rounds(os.path.join(run_dir, "metrics.jsonl"))
    start = time.time()
    deadline = start + a.minutes * 60
    rss_first, rss_last, pid_first = {}, {}, {}
    tally = {k: [0, 0, 0.0] for k in KINDS}  # injected, survived, slowest recovery
    attached, failure, bag = False, None, []

    def sample():
        for name, pid in procs.list().items():
            mb = procs.rss_mb(pid)
            if mb is None:
                continue
            if time.time() - start >= a.warmup and name not in rss_first:
                rss_first[name], pid_first[name] = mb, pid
            if name in rss_first:
                rss_last[name] = (mb, pid)

    def wait(seconds):
        until = time.time() + seconds
        while time.time() < until:
            if ctl.poll() is not None:
                return False
            rounds.poll()
            sample()
            time.sleep(min(2.0, max(0.0, until - time.time())))
        return True

    while failure is None and time.time() < deadline:
        if not wait(min(rng.uniform(low, high), max(0.0, deadline - time.time()))):
            failure = f"the controller exited ({ctl.returncode}) on its own; see {log.name}"
            break
        if time.time() >= deadline:
            break
        names = procs.list()
        eligible = [k for k in KINDS if victims(k, names) and not (k == "agent" and attached)]
        if not set(bag) & set(eligible):  # every kind once in each turn, in a random order
            bag = rng.sample(eligible, len(eligible))
        kind = next(k for k in bag if k in eligible)
        bag.remove(kind)
        victim = rng.choice(sorted(victims(kind, names)))
        before = rounds.poll()
        killed_at = time.time()
        try:
            os.kill(names[victim], signal.SIGKILL)
        except ProcessLookupError:
            continue  # (it ended between the look and the kill: a restart under way)
        tally[kind][0] += 1
        print(f"{killed_at - start:7.0f} s  kill -9 {victim} (pid {names[victim]}) at round {before}", flush=True)
        if kind == "controller":
            ctl.wait()
            ctl = controller(["attach", run_dir])
            attached = True
        while rounds.poll() <= before and time.time() - killed_at < a.patience and ctl.poll() is None:
            sample()
            time.sleep(0.2)
        recovery = time.time() - killed_at
        if rounds.poll() > before:
            tally[kind][1] += 1
            tally[kind][2] = max(tally[kind][2], recovery)
            print(f"{time.time() - start:7.0f} s  round {rounds.newest} aggregated {recovery:.1f} s after", flush=True)
        else:
            failure = f"no round aggregated within {a.patience:g} s of killing {victim}"

    sample()
    ctl.send_signal(signal.SIGINT)
    try:
        code = ctl.wait(timeout=180)
    except subprocess.TimeoutExpired:
        ctl.kill()
        code = "killed after 180 s"
    minutes = (time.time() - start) / 60
    report(a, tally, minutes, code, run_dir, history, rss_first, rss_last, pid_first, failure)


def report(a, tally, minutes, code, run_dir, history, rss_first, rss_last, pid_first, failure):
    ok = failure is None
    print(f"\nsoak: {minutes:.1f} min, seed {a.seed}; the controller's exit after SIGINT: {code}")
    print(f"{'fault injected (kill -9)':<26}{'injected':>9}{'survived':>9}{'slowest recovery':>18}")
    for kind, (n, survived, slowest) in tally.items():
        print(f"{kind:<26}{n:>9}{survived:>9}{(f'{slowest:.1f} s' if survived else '-'):>18}")
    total = sum(t[0] for t in tally.values())
    survived = sum(t[1] for t in tally.values())
    print(f"{'all':<26}{total:>9}{survived:>9}")
    ok &= total == survived

    jsonl = aggregated_rounds(os.path.join(run_dir, "metrics.jsonl"))
    db = sqlite3.connect(history)
    rows = [r for (r,) in db.execute("SELECT round FROM metrics WHERE name = 'aggregate.round_s' "
                                     "AND source LIKE 'central/global_server%'")]
    missing = sorted(set(jsonl) - set(rows))
    twice = sorted({r for r in rows if rows.count(r) > 1}) if len(rows) != len(set(rows)) else []
    print(f"\nrounds aggregated: {len(set(jsonl))} ({len(set(jsonl)) / max(minutes, 1e-9):.0f} a minute); "
          f"metrics.jsonl {len(jsonl)} aggregate records, the history {len(rows)} rows: "
          f"{len(missing)} missing, {len(twice)} stored twice")
    ok &= not missing and not twice and len(set(jsonl)) == len(jsonl)

    print(f"\n{'resident memory (MB)':<26}{'after warm-up':>14}{'end':>9}{'growth':>9}  process")
    for name in sorted(rss_first):
        last, pid = rss_last[name]
        growth = last / rss_first[name] - 1
        same = "the same" if pid == pid_first[name] else "restarted since"
        print(f"{name:<26}{rss_first[name]:>14.1f}{last:>9.1f}{growth:>+9.1%}  {same}")
        ok &= growth <= 0.10 or same != "the same"
    if failure:
        print(f"\nFAILED: {failure}")
    print("\nsoak: " + ("every check held" if ok else "a check FAILED"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
