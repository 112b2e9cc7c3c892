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
    void add(const float* values, size_t length) override;
    int contributions() const override { return m_count; }
    const std::vector<float>& result() override { return m_sum; }

private:
    std::vector<float> m_sum;
    int m_count = 0;
};

}  // namespace hips
