#pragma once
// The robust rules' whole-vector work on a GPU (VectorBackend.h), for a server whose device is
// one: the contributions are copied to the GPU once per round, distances come from one Gram matrix
// and Weiszfeld's iterations run there, all in double precision like the CPU's, so both pick the
// same contributions. bench_gpu_rules: 55–209× the CPU's time on an H100, copies included.
#include "VectorBackend.h"

namespace hips {

// Throws TrainError naming the device when this LibTorch cannot use it.
std::shared_ptr<const VectorBackend> makeGpuVectorBackend(const QString& device);

}  // namespace hips
