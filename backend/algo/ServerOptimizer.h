#pragma once
// The optimizer a server owns when workers push gradients (synchronous SGD): SGD with momentum
// exactly as PyTorch's torch.optim.SGD computes it (no dampening, no Nesterov):
// v ← μ·v + g (v = g at the first step), w ← w − η·v.
#include <cstddef>
#include <vector>

namespace hips {

class MomentumSgd {
public:
    MomentumSgd(float learningRate, float momentum) : m_lr(learningRate), m_momentum(momentum) {}
    // out = the next weights from `w` and the gradient `g` (out may be w).
    void step(float* out, const float* w, const float* g, size_t n);
    const std::vector<float>& velocity() const { return m_velocity; }
    void setVelocity(std::vector<float> velocity) { m_velocity = std::move(velocity); }  // from a checkpoint

private:
    float m_lr, m_momentum;
    std::vector<float> m_velocity;
};

}  // namespace hips
