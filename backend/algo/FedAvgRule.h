#pragma once
#include "AggregationRule.h"

#include <vector>

namespace hips {

// FedAvg as in HiPS: every worker pushes Δ_i = (w_i − w) / N_all, so the aggregate at
// both layers is the plain sum Σ Δ_i and the global update is w ← w + Σ Δ_i
// (ALGORITHMS.md, "HiPS — two-layer parameter server", steps 1–3).
// Contributions are held (zero-copy when they come with an owner). Servers fold each one into
// the next model as it arrives (foldsOnArrival); write() sums them in one pass that reads each
// once (w + Σ Δ_i: N+1 reads and one write) where a range must be computed from the inputs.
class FedAvgRule final : public AggregationRule {
public:
    QString name() const override { return QStringLiteral("fedavg"); }
    void begin(size_t length) override;
    void add(Contribution c) override;
    int contributions() const override { return int(m_inputs.size()); }
    void write(float* out, const float* base, size_t begin, size_t end) const override;
    bool foldsOnArrival() const override { return true; }

private:
    size_t m_length = 0;
    std::vector<QString> m_from;  // the senders, in order; each one's values at the same place below
    std::vector<const float*> m_inputs;
    std::vector<std::shared_ptr<const void>> m_owners;
};

}  // namespace hips
