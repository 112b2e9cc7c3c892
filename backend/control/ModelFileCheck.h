#pragma once
// The user's TorchScript model, read before a run starts: `hips-trainer model-info` (beside the
// agent; the controller itself never loads LibTorch) gives its SHA-256 and tensor sizes, which go
// into the run's topology, so that servers size the model without LibTorch and every role checks
// that it loads the identical file.
#include "Topology.h"

namespace hips {

// Fills settings->modelSha256 and modelTensors for a TorchScript model that lacks them; empty on
// success (and for a built-in model), else what is wrong with the file and what to do.
QString resolveModelFile(TrainingSettings* settings);

// The designer's "Check model": "431,080 trainable parameters in 12 tensors (and 4 floating
// buffers); SHA-256 …" in *text; empty on success, else what is wrong with the file.
QString describeModelFile(const QString& file, QString* text);

}  // namespace hips
