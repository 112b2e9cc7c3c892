#include "FedOptimizer.h"

#include <algorithm>
#include <cmath>

namespace hips {

using T = ParamSpec::Type;

namespace {
ParamSpec lr(double fallback) {
    return {QStringLiteral("server_lr"), T::Number, 1e-6, 100, fallback, QStringLiteral("the server's learning rate η")};
}
const ParamSpec kBeta1{QStringLiteral("server_beta1"), T::Number, 0, 0.999999, 0.9, QStringLiteral("momentum of the first moment β1")};
const ParamSpec kBeta2{QStringLiteral("server_beta2"), T::Number, 0, 0.999999, 0.99, QStringLiteral("decay of the second moment β2")};
const ParamSpec kTau{QStringLiteral("server_tau"), T::Number, 1e-12, 1, 1e-3, QStringLiteral("adaptivity τ (the smallest √v divided by)")};

struct OptimizerEntry {
    StrategyInfo info;
    FedOptimizer::Kind kind;
};

const QList<OptimizerEntry>& entries() {
    using K = FedOptimizer::Kind;
    static const QList<OptimizerEntry> table{
        {{QStringLiteral("sgd"), QStringLiteral("x ← x + η·Δ: FedAvg with η = 1."), {lr(1)}, {}}, K::Sgd},
        {{QStringLiteral("momentum"), QStringLiteral("Server momentum (FedAvgM): m ← β1·m + Δ, x ← x + η·m."), {lr(1), kBeta1}, {}},
         K::Momentum},
        {{QStringLiteral("adam"),
          QStringLiteral("FedAdam: adaptive steps from the first and second moments of Δ."),
          {lr(0.01), kBeta1, kBeta2, kTau},
          {}},
         K::Adam},
        {{QStringLiteral("yogi"),
          QStringLiteral("FedYogi: FedAdam with Yogi's additive second moment."),
          {lr(0.01), kBeta1, kBeta2, kTau},
          {}},
         K::Yogi},
        {{QStringLiteral("adagrad"), QStringLiteral("FedAdagrad: steps scaled by the summed squares of Δ."), {lr(0.01), kTau}, {}},
         K::Adagrad},
    };
    return table;
}

}  // namespace

const StrategyList& ServerOptimizerRegistry::all() {
    static const StrategyList list = strategiesOf(entries());
    return list;
}

FedOptimizer::Kind FedOptimizer::kindOf(const QString& name) {
    for (const OptimizerEntry& e : entries())
        if (e.info.name == name) return e.kind;
    return Kind::Sgd;
}

void FedOptimizer::step(float* out, const float* w, const float* delta, size_t n) {
    const size_t weights = std::min(n, m_stepped);
    for (size_t i = weights; i < n; ++i) out[i] = w[i] + delta[i];  // (running statistics: averaged)
    if (m_kind == Kind::Sgd) {
        for (size_t i = 0; i < weights; ++i) out[i] = w[i] + m_lr * delta[i];
        return;
    }
    if (m_m.size() != n) m_m.assign(n, 0.0f), m_v.assign(m_kind == Kind::Momentum ? 0 : n, 0.0f);
    for (size_t i = 0; i < weights; ++i) {
        const float d = delta[i];
        switch (m_kind) {
            case Kind::Momentum:
                m_m[i] = m_beta1 * m_m[i] + d;
                out[i] = w[i] + m_lr * m_m[i];
                continue;
            case Kind::Adam:
                m_m[i] = m_beta1 * m_m[i] + (1 - m_beta1) * d;
                m_v[i] = m_beta2 * m_v[i] + (1 - m_beta2) * d * d;
                break;
            case Kind::Yogi: {
                m_m[i] = m_beta1 * m_m[i] + (1 - m_beta1) * d;
                const float d2 = d * d;
                m_v[i] -= (1 - m_beta2) * d2 * (m_v[i] > d2 ? 1.0f : (m_v[i] < d2 ? -1.0f : 0.0f));
                break;
            }
            case Kind::Adagrad:
                m_m[i] = d;
                m_v[i] += d * d;
                break;
            case Kind::Sgd: break;
        }
        out[i] = w[i] + m_lr * m_m[i] / (std::sqrt(m_v[i]) + m_tau);
    }
}

std::vector<float> FedOptimizer::state() const {
    std::vector<float> out = m_m;
    out.insert(out.end(), m_v.begin(), m_v.end());
    return out;
}

void FedOptimizer::setState(std::vector<float> state) {
    if (state.empty()) return;
    const bool momentum = m_kind == Kind::Momentum;
    const size_t n = momentum ? state.size() : state.size() / 2;
    if (!momentum && state.size() % 2 != 0) return;
    m_m.assign(state.begin(), state.begin() + std::ptrdiff_t(n));
    m_v.assign(state.begin() + std::ptrdiff_t(n), state.end());
}

}  // namespace hips
