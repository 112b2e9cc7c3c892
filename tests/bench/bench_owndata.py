#!/usr/bin/python3
"""The parties' own data and a model of the user's, against the same FedAvg in PyTorch (issue 42).

Each party brings Fashion-MNIST images of its own, in its own format: party1 an image folder of
PNG files, party2 an .npz archive (uint8 images, int64 labels), party3 a csv table (784 pixel
columns and a label), the master a test set as .npy.
The model is written and scripted in PyTorch (Debian's python3-torch): convolutions, BatchNorm
and a layer of its own (a learnable per-channel scale). HiPS trains it over the default
topology's shape with a third party like the other two (3 parties x 2 workers), each party's workers splitting that party's data; the
same FedAvg runs in PyTorch on the same per-party data (each worker's SGD with momentum, the
mean of the six local models and BatchNorm statistics after each round). Then model.pt, the
model HiPS hands back, is loaded in Python and evaluated.

Prints both final accuracies and their difference (goal <= 0.01), and model.pt's accuracy against
the one the run reported (goal: within 0.001).

    /usr/bin/python3 tests/bench/bench_owndata.py [--hips build/bin/hips] [--rounds 10] [--per-party 12000]
"""
import argparse
import json
import os
import re
import struct
import subprocess
import tempfile
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from bench_vs_pytorch import read_idx  # Fashion-MNIST's IDX files as arrays

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
WORKERS_PER_PARTY, BATCH, LR, MOMENTUM, LOCAL_STEPS, SEED = 2, 64, 0.05, 0.9, 50, 1


def png(pixels):  # an 8-bit greyscale PNG, written by hand (no imaging library needed)
    h, w = pixels.shape
    raw = b"".join(b"\0" + pixels[y].tobytes() for y in range(h))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


class Scale(nn.Module):  # the user's own layer: a learnable scale per channel
    def __init__(self, channels):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(1, channels, 1, 1))

    def forward(self, x):
        return x * self.weight


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5, padding=2)
        self.bn1 = nn.BatchNorm2d(16)
        self.scale = Scale(16)
        self.conv2 = nn.Conv2d(16, 32, 5)
        self.fc1 = nn.Linear(32 * 5 * 5, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.scale(self.bn1(self.conv1(x)))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def write_data(root, per_party):
    images, labels = read_idx("train-images-idx3-ubyte.gz"), read_idx("train-labels-idx1-ubyte.gz")
    parties = [(images[p * per_party:(p + 1) * per_party], labels[p * per_party:(p + 1) * per_party]) for p in range(3)]
    folder = os.path.join(root, "party1")
    for c in range(10):
        os.makedirs(os.path.join(folder, str(c)), exist_ok=True)
    for i, (image, label) in enumerate(zip(*parties[0])):
        with open(os.path.join(folder, str(label), f"{i:06d}.png"), "wb") as f:
            f.write(png(image))
    np.savez(os.path.join(root, "party2.npz"), x=parties[1][0].reshape(-1, 1, 28, 28), y=parties[1][1].astype(np.int64))
    y = parties[2][1]
    x = (parties[2][0].reshape(-1, 784) / 255.0).astype(np.float32)  # a table's features are used as stored
    np.savetxt(os.path.join(root, "party3.csv"), np.column_stack([y, x]), delimiter=",", comments="",
               fmt=["%d"] + ["%.6g"] * 784, header="label," + ",".join(f"p{i}" for i in range(784)))
    test = os.path.join(root, "test")
    os.makedirs(test, exist_ok=True)
    np.save(os.path.join(test, "x.npy"), read_idx("t10k-images-idx3-ubyte.gz").reshape(-1, 1, 28, 28))
    np.save(os.path.join(test, "y.npy"), read_idx("t10k-labels-idx1-ubyte.gz").astype(np.int64))
    # What each party's hosts read, as HiPS reads it: the image folder in sorted class order,
    # bytes scaled to [0, 1]; the csv's values as stored.
    order = sorted(range(per_party), key=lambda i: (str(parties[0][1][i]), i))
    p1 = (torch.from_numpy(parties[0][0][order].copy()).float().div(255).unsqueeze(1), torch.from_numpy(parties[0][1][order].astype(np.int64)))
    p2 = (torch.from_numpy(parties[1][0].copy()).float().div(255).unsqueeze(1), torch.from_numpy(parties[1][1].astype(np.int64)))
    p3 = (torch.from_numpy(x.reshape(-1, 1, 28, 28).copy()), torch.from_numpy(y.astype(np.int64)))
    return [p1, p2, p3]


def topology(root, rounds, model):
    with open(os.path.join(ROOT, "resources/topologies/default.json")) as f:
        t = json.load(f)
    t["parties"][1]["data"] = {"format": "image-folder", "path": os.path.join(root, "party1")}
    third = json.loads(json.dumps(t["parties"][2]))
    third["id"] = "party3"
    third["roles"]["scheduler"]["port"], third["roles"]["servers"][0]["port"] = 9400, 9401
    t["parties"].append(third)
    t["parties"][2]["data"] = {"format": "npz", "path": os.path.join(root, "party2.npz")}
    t["parties"][3]["data"] = {"format": "csv", "path": os.path.join(root, "party3.csv")}
    t["training"].update({"model": {"torchscript": model}, "input_shape": [1, 28, 28], "classes": 10, "rounds": rounds,
                          "evaluation_data": {"format": "npy", "path": os.path.join(root, "test")}})
    path = os.path.join(root, "own.json")
    with open(path, "w") as f:
        json.dump(t, f)
    return path


def pytorch_fedavg(parties, test, rounds):
    torch.manual_seed(SEED)
    global_net = Net()
    workers = []
    for p, (x, y) in enumerate(parties):
        torch.manual_seed(SEED)
        perm = torch.randperm(len(y))
        for w in range(WORKERS_PER_PARTY):
            shard = perm[len(y) * w // WORKERS_PER_PARTY:len(y) * (w + 1) // WORKERS_PER_PARTY]
            net = Net()
            workers.append((x[shard], y[shard], net, torch.optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM),
                            torch.Generator().manual_seed(SEED * 1000003 + len(workers))))
    for _ in range(rounds):
        states = []
        for x, y, net, opt, gen in workers:
            net.load_state_dict(global_net.state_dict())
            net.train()
            for _ in range(LOCAL_STEPS):
                idx = torch.randint(0, len(y), (BATCH,), generator=gen)
                opt.zero_grad()
                F.cross_entropy(net(x[idx]), y[idx]).backward()
                opt.step()
            states.append(net.state_dict())
        averaged = {k: (sum(s[k].float() for s in states) / len(states)).to(v.dtype) for k, v in global_net.state_dict().items()}
        global_net.load_state_dict(averaged)
    return accuracy(global_net, *test)


def accuracy(net, x, y):
    net.eval()
    with torch.inference_mode():
        return sum((net(x[i:i + 1000]).argmax(1) == y[i:i + 1000]).sum().item() for i in range(0, len(y), 1000)) / len(y)


def main():
    args = argparse.ArgumentParser()
    args.add_argument("--hips", default=os.path.join(ROOT, "build/bin/hips"))
    args.add_argument("--rounds", type=int, default=10)
    args.add_argument("--per-party", type=int, default=8000)
    a = args.parse_args()
    torch.set_num_threads(2)
    with tempfile.TemporaryDirectory() as root:
        parties = write_data(root, a.per_party)
        test = (torch.from_numpy(np.load(os.path.join(root, "test/x.npy"))).float().div(255),
                torch.from_numpy(np.load(os.path.join(root, "test/y.npy"))))
        torch.manual_seed(SEED)
        model = os.path.join(root, "net.pt")
        torch.jit.save(torch.jit.script(Net()), model)
        out = os.path.join(root, "run")
        run = subprocess.run([a.hips, "run", topology(root, a.rounds, model), "--out", out,
                              "--history", os.path.join(root, "history.sqlite")], capture_output=True, text=True)
        print(run.stdout.strip().splitlines()[-2] if run.stdout.strip() else run.stderr)
        final = re.search(r"final test accuracy ([01]\.\d{4})", run.stdout)
        if run.returncode != 0 or not final:
            raise SystemExit(f"hips run failed:\n{run.stderr}")
        hips = float(final.group(1))
        back = accuracy(torch.jit.load(os.path.join(out, "model.pt")), *test)
        baseline = pytorch_fedavg(parties, test, a.rounds)
        print(f"own data, TorchScript model, {a.rounds} rounds, {a.per_party} samples a party:")
        print(f"  HiPS {hips:.4f}, PyTorch FedAvg {baseline:.4f}: difference {abs(hips - baseline):.4f} (goal <= 0.01)")
        print(f"  model.pt in Python {back:.4f} against the reported {hips:.4f}: difference {abs(back - hips):.4f} (goal <= 0.001)")


if __name__ == "__main__":
    main()
