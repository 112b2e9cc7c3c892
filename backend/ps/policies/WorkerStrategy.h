#pragma once
// What a worker computes and when it pushes (ENGINE.md's WorkerStrategy), one per mode family:
// the worker role runs the loop (pull, work, push, report) and asks its strategy for the work
// between two pushes and for what goes up. Chosen from the mode's policy (ModeRegistry, the only
// list of mode names).
#include "LocalTrainer.h"
#include "ModelBuffers.h"
#include "RoleContext.h"

#include <functional>
#include <memory>

namespace hips {

class WorkerStrategy {
public:
    virtual ~WorkerStrategy() = default;
    // Once, before the first model is pulled (ESync: the state service learns this device's pace).
    virtual void start(LocalTrainer&) {}
    // The local work between two pushes, from the model the trainer holds; `sync` is the
    // push's round (its base version + 1).
    virtual RoundStats work(LocalTrainer& trainer, qint64 sync) = 0;
    // What goes up after work(): written into `out` (the model's size).
    virtual void update(const LocalTrainer& trainer, const ModelVersion& base, float* out) const = 0;
    // After the last push.
    virtual void finish() {}
    // Called while it waits for a peer (ESync's state service): the role's own checks (a
    // scheduler's abort), which also vouch for the work thread's heartbeats.
    virtual void setWhileWaiting(std::function<void()>) {}
};

// The strategy of the node's mode.
std::unique_ptr<WorkerStrategy> makeWorkerStrategy(RoleContext& ctx);
// The same without a peer (hips simulate's virtual workers): for esync only its update, the delta
// scaled by global_lr / N, whose steps the caller ends (its work() trains one round's worth).
std::unique_ptr<WorkerStrategy> makeWorkerStrategy(const Topology& topology, const Node& worker);

}  // namespace hips
