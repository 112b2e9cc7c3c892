#!/usr/bin/python3
"""Scripts the ESync seed's networks as a user would: torchvision's resnet50 and mobilenet_v2
(Debian's python3-torchvision; no weights, nothing downloaded) saved with torch.jit.save.
Usage: make_torchvision_models.py OUT_DIR CLASSES"""
import sys

import torch
import torchvision

out, classes = sys.argv[1], int(sys.argv[2])
for name in ("resnet50", "mobilenet_v2"):
    torch.manual_seed(1)
    net = getattr(torchvision.models, name)(num_classes=classes)
    torch.jit.save(torch.jit.script(net), f"{out}/{name}.pt")
    print(name, sum(p.numel() for p in net.parameters()))
