#pragma once
// One worker's local training, behind a torch-free interface so that the parameter-server
// code does not include LibTorch.
#include "Topology.h"

#include <functional>
#include <memory>
#include <vector>

namespace hips {

struct RoundStats {
    double loss = 0;  // mean training loss over the round's batches
    int64_t samples = 0;
    double computeSeconds = 0;
    int64_t steps = 0;
};

// What one trainer trains on: shard `part` of `parts` of its party's own source, or (no source)
// of the run's dataset split over every party.
struct TrainingData {
    std::optional<DataSource> source;
    QString owner;  // who declared the source, for messages: "party 'hospital1'"
    int part = 0;
    int parts = 1;
    uint32_t stream = 0;  // the source's (sourceStream): mixed into the shard, order and dropout seeds
};

struct EvalStats {
    double accuracy = 0;
    double rmse = -1;  // a regression's root mean squared error over every target; -1: a classifier's
    // (NaN: a regression whose model diverged, never a classifier's accuracy of 0.)
    bool regression() const { return !(rmse < 0); }
    double top5 = -1;  // -1: fewer than 5 classes
    std::vector<int64_t> confusion;  // classes x classes, row = true class, column = predicted
    double loss = 0;
    int64_t samples = 0;
    double seconds = 0;
};

class LocalTrainer {
public:
    LocalTrainer(const TrainingSettings& settings, const TrainingData& data, const QString& device);
    // Shard workerIndex of workerCount of the run's dataset.
    LocalTrainer(const TrainingSettings& settings, int workerIndex, int workerCount, const QString& device)
        : LocalTrainer(settings, TrainingData{std::nullopt, {}, workerIndex, workerCount}, device) {}
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
    QStringList classNames() const;  // each label's name where the source names them, else empty
    QStringList featureNames() const;  // each feature column's name where the source names them (csv), else empty
    QString sourceDigest() const;  // what its party's (or host's) source holds here (loadSource); empty: the run's dataset
    // The rows of its source held out for the party's own test (`holdout`): the source's first
    // worker has them, the others none.
    int64_t heldOutSize() const;
    EvalStats evaluateHeldOut(const float* weights);
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
    // Frees what a turn builds and the next one builds again (the gradients, FedProx's starting
    // point): hips simulate keeps thousands of trainers between their turns. Their state
    // (saveState's) stays. releaseWeights gives the weights' memory back too, until setWeights.
    void park();
    void releaseWeights();
    // What a worker carries from round to round besides the model: the optimizer's momentum, the
    // shard's shuffled order and position, the random generators. Restoring it makes a resumed
    // run compute exactly what the uninterrupted one would have.
    QByteArray saveState() const;
    void loadState(const QByteArray& bytes);  // throws TrainError naming what does not fit
    // The most bytes saveState() can take for this model and shard: a state file is read to this
    // much and no further (one made larger by someone else is refused, never read to the end).
    int64_t stateBytesBound() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
    std::function<void()> m_progress;
};

// The master worker's model: initial weights, evaluation on the test set, checkpoints.
class ModelEvaluator {
public:
    ModelEvaluator(const TrainingSettings& settings, const QString& device);
    ~ModelEvaluator();

    size_t parameterCount() const;
    std::vector<float> initialWeights() const;
    QStringList classNames() const;  // the test set's names of its labels, where it names them
    QStringList featureNames() const;  // the test set's names of its feature columns, where it names them
    EvalStats evaluate(const float* weights);
    void setProgress(std::function<void()> onBatch) { m_progress = std::move(onBatch); }  // after each batch evaluated
    void saveParameters(const QString& path) const;  // the last evaluated weights (torch::save)
    // The last evaluated weights for PyTorch (model.pt): the TorchScript module where the model
    // came as one (unless `stateDict`), else a state_dict that torch.load reads.
    void exportModel(const QString& path, bool stateDict = false) const;
    bool isTorchScript() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
    std::function<void()> m_progress;
};

// What a TorchScript file holds, as the controller sizes a run by it (`hips-trainer model-info`):
// the SHA-256 of its bytes and the element counts of its parameters, then of its floating buffers
// (FlatModel's order). Throws TrainError naming what LibTorch could not read.
struct ScriptModelInfo {
    QString sha256;
    std::vector<size_t> tensors;
    int64_t parameters = 0;  // trainable elements
    int64_t bufferTensors = 0;  // floating buffers (BatchNorm's statistics) among `tensors`
};
ScriptModelInfo inspectScriptModel(const QString& file);

// A run's evaluated weights (net.params, ModelEvaluator::saveParameters) written for PyTorch as
// ModelEvaluator::exportModel does; throws TrainError.
void exportTrainedModel(const TrainingSettings& settings, const QString& paramsFile, const QString& out, bool stateDict);

// Intra-op threads for this process (one per role by default: several roles share the cores).
void setTorchThreads(int threads);

// LibTorch's view of the machine, for the About box and the agent's hello.
QString torchVersion();
bool torchHasCuda();

}  // namespace hips
