#pragma once
// Server optimizers of Adaptive Federated Optimization (Reddi et al. 2020): the round's aggregate
// Δ (the sum of the workers' scaled deltas, FedAvg's step) is taken as a pseudo-gradient −Δ:
//   sgd       x ← x + η·Δ                       (η = 1: FedAvg)
//   momentum  m ← β1·m + Δ;  x ← x + η·m         (FedAvgM)
//   adam      m ← β1·m + (1 − β1)·Δ;  v ← β2·v + (1 − β2)·Δ²;          x ← x + η·m / (√v + τ)
//   yogi      m as adam;  v ← v − (1 − β2)·Δ²·sign(v − Δ²);            x ← x + η·m / (√v + τ)
//   adagrad   m = Δ;  v ← v + Δ²;                                      x ← x + η·m / (√v + τ)
// (m and v start at 0; as in the paper, no bias correction.) Chosen by `server_optimizer`, with
// server_lr, server_beta1, server_beta2 and server_tau (ServerOptimizerRegistry).
#include "StrategyInfo.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hips {

class ServerOptimizerRegistry {
public:
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
};

class FedOptimizer {
public:
    enum class Kind { Sgd, Momentum, Adam, Yogi, Adagrad };
    FedOptimizer(Kind kind, float lr, float beta1, float beta2, float tau)
        : m_kind(kind), m_lr(lr), m_beta1(beta1), m_beta2(beta2), m_tau(tau) {}
    static Kind kindOf(const QString& name);  // a ServerOptimizerRegistry name (sgd for another)
    // Steps scaled by a second moment (adam, yogi, adagrad).
    static bool adaptive(Kind kind) { return kind == Kind::Adam || kind == Kind::Yogi || kind == Kind::Adagrad; }

    // Only the first `floats` are weights (ModelRegistry::trainableFloats); the rest (BatchNorm's
    // running statistics) take the aggregate as it is, FedAvg's step.
    void stepOnlyFirst(size_t floats) { m_stepped = floats; }
    // out = the next weights from `w` and the round's aggregate `delta` (out may be w).
    void step(float* out, const float* w, const float* delta, size_t n);
    // m then v (each n floats, empty before the first step): what a checkpoint keeps.
    std::vector<float> state() const;
    void setState(std::vector<float> state);  // ignored unless it holds m and v of one size

private:
    Kind m_kind;
    float m_lr, m_beta1, m_beta2, m_tau;
    std::vector<float> m_m, m_v;
    size_t m_stepped = SIZE_MAX;
};

}  // namespace hips
