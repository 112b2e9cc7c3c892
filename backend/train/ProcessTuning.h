#pragma once
// Process-wide settings of a training process, applied once at its start (hips-trainer, the
// training benches). LibTorch-free, so a main can call them before anything else. The heap's
// settings, which every role shares, are in ProcessMemory.h.

namespace hips {

// One BLAS thread: OpenBLAS otherwise starts a second, spinning thread per process whatever
// LibTorch's own setting, and several role processes share the cores. Works on whichever
// libblas.so.3 is installed (a no-op where it has no such call).
void pinBlasThreads(int threads);

}  // namespace hips
