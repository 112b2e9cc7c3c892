#!/usr/bin/env python3
"""HiPS against the same FedAvg written in PyTorch, back to back on this machine (issue 10).

The baseline: 4 worker processes (torch.distributed, gloo, one thread each), the default
topology's settings (LeNet-5-like CNN, Fashion-MNIST, IID shards, batch 64, SGD lr 0.05 with
momentum 0.9, 50 local steps, 20 rounds), the same seed for the initial weights; after each
round the models are averaged (all_reduce) and rank 0 evaluates the global model on the 10,000
test images, as HiPS's master does. Then `hips run` on the shipped default topology.

Both clocks start when the command starts (process start-up and data loading count). Prints
the wall time and the time until a test accuracy >= 0.85 was known, for both, and HiPS/PyTorch.
Skipped, with a message, when Debian's python3-torch is not installed.

    python3 tests/bench/bench_vs_pytorch.py [--hips build/bin/hips] [--runs 2]
"""
import argparse
import gzip
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = "/usr/share/datasets/fashion-mnist"
TARGET = 0.85
WORKERS, ROUNDS, LOCAL_STEPS, BATCH, LR, MOMENTUM, SEED = 4, 20, 50, 64, 0.05, 0.9, 1


def read_idx(name):
    import numpy as np
    with gzip.open(os.path.join(DATA, name)) as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(split):
    import torch
    prefix = "train" if split == "train" else "t10k"
    images = torch.from_numpy(read_idx(prefix + "-images-idx3-ubyte.gz").copy()).float()
    labels = torch.from_numpy(read_idx(prefix + "-labels-idx1-ubyte.gz").copy()).long()
    return ((images / 255.0 - 0.2860) / 0.3530).unsqueeze(1), labels


def make_net():
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):  # the CNN of backend/train/Models.cpp, layer for layer
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = F.relu(self.fc1(x.flatten(1)))
            return self.fc3(F.relu(self.fc2(x)))

    return Net()


def worker(rank, port, start, queue):
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORKERS)
    images, labels = load("train")
    torch.manual_seed(SEED)
    shard = torch.randperm(len(labels))[len(labels) * rank // WORKERS:len(labels) * (rank + 1) // WORKERS]
    images, labels = images[shard], labels[shard]
    if rank == 0:
        test_images, test_labels = load("test")
    torch.manual_seed(SEED)  # the same initial model everywhere
    net = make_net()
    opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
    generator = torch.Generator().manual_seed(SEED * 1000003 + rank)
    order, cursor = torch.randperm(len(labels), generator=generator), 0
    reached = None
    for round_ in range(1, ROUNDS + 1):
        for _ in range(LOCAL_STEPS):
            if cursor >= len(labels):
                order, cursor = torch.randperm(len(labels), generator=generator), 0
            idx = order[cursor:cursor + BATCH]
            cursor += BATCH
            opt.zero_grad()
            F.cross_entropy(net(images[idx]), labels[idx]).backward()
            opt.step()
        with torch.no_grad():  # FedAvg: the mean of the local models
            for p in net.parameters():
                dist.all_reduce(p.data)
                p.data /= WORKERS
        if rank == 0:
            with torch.inference_mode():
                correct = sum((net(test_images[i:i + 1000]).argmax(1) == test_labels[i:i + 1000]).sum().item()
                              for i in range(0, len(test_labels), 1000))
            accuracy = correct / len(test_labels)
            if reached is None and accuracy >= TARGET:
                reached = time.time() - start
            queue.put((round_, accuracy))
    if rank == 0:
        queue.put(("reached", reached))
    dist.destroy_process_group()


def run_pytorch():
    import torch.multiprocessing as mp
    start = time.time()
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    port = 29500 + os.getpid() % 1000
    procs = [ctx.Process(target=worker, args=(r, port, start, queue)) for r in range(WORKERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    wall = time.time() - start
    results = {}
    while not queue.empty():
        key, value = queue.get()
        results[key] = value
    return wall, results.get("reached"), results.get(ROUNDS)


def run_hips(hips, out):
    env = dict(os.environ)
    start = time.time()
    proc = subprocess.Popen([hips, "run", "--out", out, "--history", os.path.join(out, "history.sqlite")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    reached, final = None, None
    for line in proc.stdout:  # a row is printed once its round is trained and evaluated
        m = re.match(r"\s+(\d+)\s+([01]\.\d{4})\s", line)
        if m:
            final = float(m.group(2))
            if reached is None and final >= TARGET:
                reached = time.time() - start
    if proc.wait() != 0:
        sys.exit("hips run failed")
    return time.time() - start, reached, final


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--hips", default=os.path.join(ROOT, "build", "bin", "hips"))
    args.add_argument("--runs", type=int, default=2)
    a = args.parse_args()
    try:
        import torch  # noqa: F401
    except ImportError:
        # Debian's python3-torch is for Debian's interpreter; `python3` may be another (pyenv).
        system = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system) and \
                subprocess.run([system, "-c", "import torch"], capture_output=True).returncode == 0:
            os.execv(system, [system] + sys.argv)
        print("bench_vs_pytorch: skipped: PyTorch is not installed (apt-get install python3-torch)")
        return 0
    if not os.path.exists(os.path.join(DATA, "train-images-idx3-ubyte.gz")):
        print("bench_vs_pytorch: skipped: no Fashion-MNIST in " + DATA + " (apt-get install dataset-fashion-mnist)")
        return 0
    import tempfile
    print(f"{'run':<4} {'system':<8} {'wall_s':>7} {'to_0.85_s':>10} {'final_acc':>10}")
    ratios = []
    for run in range(1, a.runs + 1):
        pt = run_pytorch()
        with tempfile.TemporaryDirectory() as out:
            hp = run_hips(a.hips, os.path.join(out, "run"))
        for name, (wall, reached, final) in (("pytorch", pt), ("hips", hp)):
            print(f"{run:<4} {name:<8} {wall:7.1f} {reached if reached is None else round(reached, 1)!s:>10} "
                  f"{final if final is None else round(final, 4)!s:>10}", flush=True)
        if pt[1] and hp[1]:
            ratios.append((hp[0] / pt[0], hp[1] / pt[1]))
    for wall_ratio, reach_ratio in ratios:
        print(f"hips/pytorch: wall {wall_ratio:.2f}, time to {TARGET} {reach_ratio:.2f} (goal: both <= 0.80)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
