#include "ServerOptimizer.h"

namespace hips {

void MomentumSgd::step(float* out, const float* w, const float* g, size_t n) {
    if (m_velocity.size() != n) m_velocity.assign(g, g + n);  // PyTorch: the first buffer is g itself
    else
        for (size_t i = 0; i < n; ++i) m_velocity[i] = m_momentum * m_velocity[i] + g[i];
    for (size_t i = 0; i < n; ++i) out[i] = w[i] - m_lr * m_velocity[i];
}

}  // namespace hips
