#!/usr/bin/env python3
"""Gloo's side of bench_collectives: torch.distributed.all_reduce (sum, float32) among N
processes on loopback, each with one intra-op thread. Prints a JSON line per (ranks, MB):
{"ranks", "mb", "seconds"} (one allreduce, the mean of --reps after a warm-up).

    /usr/bin/python3 tests/bench/bench_collectives_gloo.py [--ranks 2,4,8] [--mb 1,4,16,64] [--reps 5]

(Debian's python3, where python3-torch is.)
"""
import argparse
import json
import multiprocessing
import queue
import socket
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_main(rank, n, port, sizes, reps, results):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=n)
    for mb in sizes:
        t = torch.ones(int(mb * (1 << 20)) // 4)
        dist.all_reduce(t)  # warm-up
        dist.barrier()
        start = time.perf_counter()
        for _ in range(reps):
            dist.all_reduce(t)
        seconds = (time.perf_counter() - start) / reps
        results.put((rank, mb, seconds))
    dist.barrier()
    dist.destroy_process_group()


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--ranks", default="2,4,8")
    a.add_argument("--mb", default="1,4,16,64")
    a.add_argument("--reps", type=int, default=5)
    args = a.parse_args()
    try:
        import torch.distributed  # noqa: F401  (before any rank: a missing torch is one clear line)
    except ImportError as e:
        sys.exit(f"bench_collectives_gloo: {e}; install python3-torch and run it with /usr/bin/python3")
    sizes = [float(x) for x in args.mb.split(",")]
    context = multiprocessing.get_context("fork")
    for n in map(int, args.ranks.split(",")):
        results = context.Queue()
        port = free_port()
        procs = [context.Process(target=rank_main, args=(r, n, port, sizes, args.reps, results)) for r in range(n)]
        for p in procs:
            p.start()
        slowest = {}
        for _ in range(n * len(sizes)):
            while True:
                try:
                    rank, mb, seconds = results.get(timeout=1)
                    break
                except queue.Empty:
                    if any(p.exitcode not in (None, 0) for p in procs):
                        for p in procs:
                            p.kill()
                        sys.exit("a Gloo rank failed")
            slowest[mb] = max(slowest.get(mb, 0), seconds)  # the call ends when its last rank does
        for p in procs:
            p.join()
            if p.exitcode != 0:
                sys.exit(f"a Gloo rank failed (exit {p.exitcode})")
        for mb in sizes:
            print(json.dumps({"ranks": n, "mb": mb, "seconds": slowest[mb]}), flush=True)


if __name__ == "__main__":
    main()
