#pragma once
// Process-wide settings of a training process, applied once at its start (hips-trainer, the
// training benches). LibTorch-free, so a main can call them before anything else. The heap's
// settings, which every role shares, are in ProcessMemory.h.

#include <functional>

namespace hips {

// One BLAS thread: OpenBLAS otherwise starts a second, spinning thread per process whatever
// LibTorch's own setting, and several role processes share the cores. Works on whichever
// libblas.so.3 is installed (a no-op where it has no such call).
void pinBlasThreads(int threads);

// How many training steps of this process compute at once; 0 (the default) sets no limit. A
// shared trainer (agent/SharedTrainer.h) runs a host's workers as threads, dozens of them on a
// few cores: unlimited, every runnable step takes a slice of every core, and a worker still
// receiving its model (or a reply, a heartbeat) waits behind all of them. Limited to the cores,
// the others wait their turn (first come, first served) and do not compete.
void setComputeSlots(int slots);

// A step's LibTorch threads (training.threads; setTorchThreads says it): the slots become the
// cores over them.
void setComputeThreadsPerStep(int threads);
int computeSlotsWaiting();  // steps waiting for a slot now

// Holds one of the process's compute slots while it lives (at once when there is no limit, and
// nothing more when its thread holds one already: a round holds one for all its steps).
class ComputeSlot {
public:
    // `whileWaiting` is called every 200 ms of a wait (a role's heartbeat vouching, a stop's check);
    // what it throws ends the wait, the turn given up.
    explicit ComputeSlot(const std::function<void()>& whileWaiting = {});
    ~ComputeSlot();
    ComputeSlot(const ComputeSlot&) = delete;
    ComputeSlot& operator=(const ComputeSlot&) = delete;

private:
    bool m_held = false;
};

// One step of the process at a time draws from LibTorch's process-wide generator (a TorchScript
// model's dropout, LocalTrainer): held while it lives, taken first come, first served, so that a
// shared trainer's TorchScript workers take turns step by step, none waiting a whole round.
// `whileWaiting` as ComputeSlot's.
class GeneratorTurn {
public:
    explicit GeneratorTurn(const std::function<void()>& whileWaiting = {});
    ~GeneratorTurn();
    GeneratorTurn(const GeneratorTurn&) = delete;
    GeneratorTurn& operator=(const GeneratorTurn&) = delete;
};

}  // namespace hips
