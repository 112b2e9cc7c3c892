#pragma once
// The Gaussian mechanism on model updates: clipping to a norm, and noise drawn from the
// operating system's cryptographically secure generator (libsodium's randombytes), never from
// the training RNG, so that no seed in any file or log can take the noise back out. And the party
// server's rule under privacy where "party": each worker's update clipped, summed, noised once.
#include "AggregationRule.h"
#include "StrategyInfo.h"

#include <memory>
#include <vector>

namespace hips {

// Where the noise is added (`training.privacy.where`), with the settings every placement takes:
// the one list the reader's ranges, the designer's choices and `hips reference` come from.
class PrivacyRegistry {
public:
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
};

}  // namespace hips

namespace hips::privacy {

// Scales v down to `clipNorm` (L2) when it is longer; returns its norm before. A v holding a value
// that is not finite comes out all NaN (no part of it is bounded: none of it may be summed).
double clipToNorm(float* v, size_t n, double clipNorm);

// v[i] += N(0, stddev²), each draw independent, from libsodium's CSPRNG (Box–Muller, polar form).
void addGaussianNoise(float* v, size_t n, double stddev);

// FedAvg's sum, each contribution clipped to `clipNorm` first, and N(0, (σ·clipNorm)²) added to
// every coordinate of the sum once the round's contributions are in.
class PrivateSumRule : public AggregationRule {
public:
    PrivateSumRule(double clipNorm, double noiseMultiplier) : m_clipNorm(clipNorm), m_sigma(noiseMultiplier) {}
    QString name() const override { return QStringLiteral("fedavg + gaussian"); }
    void begin(size_t length) override;
    void add(Contribution contribution) override;
    int contributions() const override { return m_contributions; }
    void finish() override;
    void write(float* out, const float* base, size_t begin, size_t end) const override;
    bool comparesWholeUpdates() const override { return true; }  // a norm is the whole update's

private:
    double m_clipNorm, m_sigma;
    std::vector<float> m_sum;
    int m_contributions = 0;
    bool m_noised = false;
};

}  // namespace hips::privacy
