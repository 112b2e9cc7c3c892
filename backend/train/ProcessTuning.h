#pragma once
// Process-wide settings of a training process, applied once at its start (hips-trainer, the
// training benches). LibTorch-free, so a main can call them before anything else.

namespace hips {

// Keeps large temporaries (an evaluation batch's activations, ~19 MB) in the heap: by default
// glibc maps each one afresh and returns it on free, so every evaluation faulted its buffers
// back in, millions of minor page faults a run (issue 10). Call before the first allocation
// that matters.
void keepLargeAllocations();

// One BLAS thread: OpenBLAS otherwise starts a second, spinning thread per process whatever
// LibTorch's own setting, and several role processes share the cores. Works on whichever
// libblas.so.3 is installed (a no-op where it has no such call).
void pinBlasThreads(int threads);

}  // namespace hips
