#pragma once
// One worker's local training, behind a torch-free interface so that the parameter-server
// code does not include LibTorch.
#include "Topology.h"

#include <functional>
#include <memory>
#include <vector>

namespace hips {

struct RoundStats {
    double loss = 0;          // mean training loss over the round's batches
    int64_t samples = 0;
    double computeSeconds = 0;
    int64_t steps = 0;
};

class LocalTrainer {
public:
    // workerIndex/workerCount select the IID shard of the training set.
    LocalTrainer(const TrainingSettings& settings, int workerIndex, int workerCount, const QString& device);
    ~LocalTrainer();

    size_t parameterCount() const;
    int64_t shardSize() const;
    void setWeights(const float* weights);
    // Called after each step of trainRound/trainSteps: the work thread is moving (heartbeats).
    void setProgress(std::function<void()> onStep) { m_progress = std::move(onStep); }
    RoundStats trainRound();  // local_iters steps, or local_epochs passes over the shard
    RoundStats trainSteps(int64_t steps);
    int64_t stepsPerRound() const;
    std::vector<int64_t> classCounts() const;  // samples of each class in this worker's shard
    // Stretches every step to `factor` times its compute time (WorkerGroup::slowdown).
    void setSlowdown(double factor);
    // Trains on flipped labels (class c read as C − 1 − c) while on: a label-flipping adversary.
    void setLabelFlip(bool on);
    // One SGD step of the local optimizer on the next batch.
    RoundStats step();
    // The gradient of the loss on the next batch at the current weights, without a step
    // (writeGradient then gives it): synchronous SGD, where the server owns the optimizer.
    RoundStats gradient();
    void writeGradient(float scale, float* out) const;
    // out = (w_local − global) · scale: the FedAvg push with scale 1/N_all.
    void writeDelta(const float* global, float scale, float* out) const;
    void writeWeights(float* out) const;  // w_local, e.g. for the local baseline's evaluation
    // What a worker carries from round to round besides the model: the optimizer's momentum, the
    // shard's shuffled order and position, the random generators. Restoring it makes a resumed
    // run compute exactly what the uninterrupted one would have.
    QByteArray saveState() const;
    void loadState(const QByteArray& bytes);  // throws TrainError naming what does not fit

private:
    struct Impl;
    std::unique_ptr<Impl> d;
    std::function<void()> m_progress;
};

struct EvalStats {
    double accuracy = 0;
    double loss = 0;
    int64_t samples = 0;
    double seconds = 0;
};

// The master worker's model: initial weights, evaluation on the test set, checkpoints.
class ModelEvaluator {
public:
    ModelEvaluator(const TrainingSettings& settings, const QString& device);
    ~ModelEvaluator();

    size_t parameterCount() const;
    std::vector<float> initialWeights() const;
    EvalStats evaluate(const float* weights);
    void setProgress(std::function<void()> onBatch) { m_progress = std::move(onBatch); }  // after each batch evaluated
    void saveParameters(const QString& path) const;  // the last evaluated weights (torch::save)

private:
    struct Impl;
    std::unique_ptr<Impl> d;
    std::function<void()> m_progress;
};

// Intra-op threads for this process (one per role by default: several roles share the cores).
void setTorchThreads(int threads);

// LibTorch's view of the machine, for the About box and the agent's hello.
QString torchVersion();
bool torchHasCuda();

}  // namespace hips
