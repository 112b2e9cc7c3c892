#pragma once
// The user's TorchScript model, read before a run starts: `hips-trainer model-info` (beside the
// agent; the controller itself never loads LibTorch) gives its SHA-256 and tensor sizes, which go
// into the run's topology, so that servers size the model without LibTorch and every role checks
// that it loads the identical file.
#include "Topology.h"

namespace hips {

// Fills settings->modelSha256 and modelTensors for a TorchScript model that lacks them; empty on
// success (and for a built-in model), else what is wrong with the file and what to do. What it
// read of a file is kept, in this process, until the file changes (its size, time or inode): a
// window reads the file on a thread of its own before the start, which then finds it read.
QString resolveModelFile(TrainingSettings* settings);
// Whether resolveModelFile reads the file (a TorchScript model whose file is here, or whose
// SHA-256 and sizes are not known yet): hips-trainer's start-up took 0.5-1 s here with LibTorch's
// files in the page cache and 11.5 s without, which a window must not wait for.
bool readsModelFile(const TrainingSettings& settings);

// The designer's "Check model": "431,080 trainable parameters in 12 tensors (and 4 floating
// buffers); SHA-256 …" in *text; empty on success, else what is wrong with the file.
QString describeModelFile(const QString& file, QString* text);

}  // namespace hips
