#pragma once
// A network whose parameters are views into one contiguous float tensor, so the whole
// model moves on the wire as one frame and loads with one copy, never a per-tensor walk.
#include "Models.h"

namespace hips {

class FlatModel {
public:
    FlatModel(const QString& name, InputShape in, torch::Device device, int seed);

    Net& net() { return *m_net; }
    std::shared_ptr<Net> shared() { return m_net; }
    const torch::Tensor& flat() const { return m_flat; }
    int64_t parameterCount() const { return m_flat.numel(); }
    torch::Device device() const { return m_flat.device(); }

    void load(const float* cpuWeights);
    // The weights in host memory: the flat tensor itself on the CPU; on a GPU, a pinned mirror
    // filled by one asynchronous copy, so pushes read it without allocating per round.
    const torch::Tensor& hostFlat();
    // out = scale · ∂loss/∂w in the flat layout (padding zero), from the last backward pass.
    void writeGradient(float scale, float* cpuOut) const;
    std::vector<float> weights() const;  // a CPU copy

private:
    std::shared_ptr<Net> m_net;
    torch::Tensor m_flat;
    torch::Tensor m_host;  // GPU only: the pinned mirror of m_flat (hostFlat, load)
    std::vector<int64_t> m_offsets;  // where each tensor starts in m_flat: the parameters', then the buffers'
    size_t m_parameterTensors = 0;
};

}  // namespace hips
