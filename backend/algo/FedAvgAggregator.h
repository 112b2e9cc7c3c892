#pragma once
#include "Aggregator.h"

namespace hips {

// FedAvg as in HiPS: every worker pushes Δ_i = (w_i − w) / N_all, so the aggregate at
// both layers is the plain sum Σ Δ_i and the global update is w ← w + Σ Δ_i
// (ALGORITHMS.md, "HiPS — two-layer parameter server", steps 1–3).
class FedAvgAggregator final : public Aggregator {
public:
    QString name() const override { return QStringLiteral("fedavg"); }
    void begin(size_t length) override;
    void add(const float* values, size_t length, std::shared_ptr<const void> owner) override;
    int contributions() const override { return m_count; }
    const float* result() const override { return m_first ? m_firstValues : m_sum.data(); }

private:
    // The first contribution is held, not copied; the second is summed with it in one pass.
    std::shared_ptr<const void> m_first;
    const float* m_firstValues = nullptr;
    std::vector<float> m_sum;
    int m_count = 0;
};

}  // namespace hips
