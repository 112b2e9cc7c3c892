#pragma once
// A network whose parameters are views into one contiguous float tensor, so the whole
// model moves on the wire as one frame and loads with one copy, never a per-tensor walk.
#include "Models.h"
#include "Topology.h"

namespace hips {

struct Dataset;
struct EvalStats;

class FlatModel {
public:
    FlatModel(const QString& name, InputShape in, torch::Device device, int seed);
    // The settings' model: a built-in one for their input and classes, or their TorchScript file,
    // checked against the SHA-256 and tensor sizes the controller read from it.
    FlatModel(const TrainingSettings& settings, torch::Device device);

    // One forward pass of the first samples of `images`: the model must take them and return
    // float logits for `classes` classes. Throws TrainError naming the shapes; `owner` names the data.
    // `trains`: its samples are for training, and its outputs must depend on its parameters.
    void checkInput(const torch::Tensor& images, int classes, const QString& owner, bool trains = false);
    // The trained model for PyTorch: TorchScript where it came as TorchScript, else a state_dict.
    void saveForPyTorch(const QString& path, bool stateDict) const;
    bool isTorchScript() const;

    Net& net() { return *m_net; }
    std::shared_ptr<Net> shared() { return m_net; }
    const torch::Tensor& flat() const { return m_flat; }
    int64_t parameterCount() const { return m_flat.numel(); }
    torch::Device device() const { return m_flat.device(); }

    // Every turn of a worker begins with load(): between turns hips simulate gives the weights'
    // memory back (releaseWeights), and load() takes it again. The parameters stay views of the
    // same storage, so the optimizer's state (their momentum) is kept. Reading the weights while
    // released throws TrainError. (On a GPU they are kept.)
    void load(const float* cpuWeights);
    void releaseWeights();
    // The weights in host memory: the flat tensor itself on the CPU; on a GPU, a pinned mirror
    // filled by one asynchronous copy, so pushes read it without allocating per round.
    const torch::Tensor& hostFlat();
    // out = scale · ∂loss/∂w in the flat layout (padding zero), from the last backward pass.
    void writeGradient(float scale, float* cpuOut) const;
    std::vector<float> weights() const;  // a CPU copy

private:
    void flatten(torch::Device device);

    std::shared_ptr<Net> m_net;
    torch::Tensor m_flat;
    torch::Tensor m_host;  // GPU only: the pinned mirror of m_flat (hostFlat, load)
    std::vector<size_t> m_tensorSizes;  // each tensor's elements, in m_offsets' order
    std::vector<int64_t> m_offsets;  // where each tensor starts in m_flat: the parameters', then the buffers'
    size_t m_parameterTensors = 0;
    bool m_released = false;
    void checkHeld() const;
};

// The model as it stands on `data`: accuracy, top-5 (5 classes or more), loss and the confusion
// matrix, in eval mode (BatchNorm's running statistics; the caller puts it back in train mode).
// `progress` after each batch.
EvalStats evaluateOn(FlatModel& model, const Dataset& data, int64_t classes, const std::function<void()>& progress = {});

}  // namespace hips
