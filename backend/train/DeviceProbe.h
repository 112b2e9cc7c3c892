#pragma once
// What a trainer can train on: its LibTorch, whether that LibTorch has CUDA, and the GPUs the
// host's driver shows. Torch-free to include.
#include <QCborMap>
#include <QString>
#include <QStringList>

namespace hips {

// The host's GPUs by name ("NVIDIA H100 80GB HBM3"), read from the CUDA driver (libcuda.so.1)
// without LibTorch; empty where there is no driver or no GPU. Initialises CUDA in this process:
// never call it in a process that forks trainers afterwards (the zygote).
QStringList driverGpuNames();

// `hips-trainer probe`: {"torch": flavor, "cuda": LibTorch can use CUDA, "gpus": [names]}.
QCborMap probeDevices();

// A trainer's (or a GPU server's) "device" metric: {"torch": flavor, "device": "cuda:0", "gpu": name (CUDA only)}.
QCborMap describeDevice(const QString& device);

}  // namespace hips
