#include "PrivacyMechanism.h"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace hips {

const StrategyList& PrivacyRegistry::all() {
    using T = ParamSpec::Type;
    static const QList<ParamSpec> params{
        {QStringLiteral("clip_norm"), T::Number, 1e-6, 1e6, 1,
         QStringLiteral("the L2 norm no worker's update may exceed (longer ones are scaled down)")},
        {QStringLiteral("noise_multiplier"), T::Number, 0.01, 1000, 1,
         QStringLiteral("the noise's standard deviation over clip_norm; \"auto\": the least that keeps the rounds within target_epsilon")},
        {QStringLiteral("delta"), T::Number, 1e-12, 0.01, 1e-5, QStringLiteral("delta of the (epsilon, delta) guarantee")},
        {QStringLiteral("target_epsilon"), T::Number, 0.01, 1000, 0,
         QStringLiteral("the run stops before a round that would spend more (absent: no limit)")}};
    static const StrategyList list{
        {QStringLiteral("party"),
         QStringLiteral("Central DP at the party: each party server clips its workers' updates to clip_norm, sums them and adds "
                        "Gaussian noise once, before anything leaves the party."),
         params,
         {}},
        {QStringLiteral("worker"),
         QStringLiteral("Local DP: each worker clips its own update to clip_norm and adds the Gaussian noise before it leaves "
                        "the worker, so that its party server too sees only noised updates."),
         params,
         {}},
    };
    return list;
}

}  // namespace hips

namespace hips::privacy {

namespace {

// Uniform in (-1, 1), 53 random bits from the CSPRNG.
double uniformSigned() {
    uint64_t bits = 0;
    randombytes_buf(&bits, sizeof bits);
    return (double(bits >> 11) + 0.5) / double(uint64_t(1) << 53) * 2 - 1;
}

}  // namespace

double clipToNorm(float* v, size_t n, double clipNorm) {
    double squares = 0;
    for (size_t i = 0; i < n; ++i) squares += double(v[i]) * double(v[i]);
    const double norm = std::sqrt(squares);
    // A NaN or an infinity anywhere: every value becomes NaN, so that its server refuses all of
    // it. (The norm was NaN and nothing was scaled: the server left out the slices holding the
    // NaN and summed the others, unclipped.)
    if (!std::isfinite(norm)) {
        std::fill(v, v + n, std::numeric_limits<float>::quiet_NaN());
        return norm;
    }
    if (norm > clipNorm) {
        const float scale = float(clipNorm / norm);
        for (size_t i = 0; i < n; ++i) v[i] *= scale;
    }
    return norm;
}

void addGaussianNoise(float* v, size_t n, double stddev) {
    if (sodium_init() < 0) throw std::runtime_error("libsodium cannot start: no secure random source for the privacy noise");
    for (size_t i = 0; i < n;) {
        double x = 0, y = 0, s = 0;  // Marsaglia's polar method: two normals per accepted pair
        do {
            x = uniformSigned(), y = uniformSigned();
            s = x * x + y * y;
        } while (s >= 1 || s == 0);
        const double factor = stddev * std::sqrt(-2 * std::log(s) / s);
        v[i++] += float(x * factor);
        if (i < n) v[i++] += float(y * factor);
    }
}

void PrivateSumRule::begin(size_t length) {
    m_sum.assign(length, 0.0f);
    m_contributions = 0;
    m_noised = false;
}

void PrivateSumRule::add(Contribution c) {
    if (c.length != m_sum.size())
        throw std::invalid_argument("private sum: contribution of " + std::to_string(c.length) + " values, expected " +
                                    std::to_string(m_sum.size()));
    std::vector<float> clipped(c.values, c.values + c.length);
    clipToNorm(clipped.data(), clipped.size(), m_clipNorm);
    for (size_t i = 0; i < clipped.size(); ++i) m_sum[i] += clipped[i];
    ++m_contributions;
}

void PrivateSumRule::finish() {
    if (m_noised) return;
    addGaussianNoise(m_sum.data(), m_sum.size(), m_sigma * m_clipNorm);
    m_noised = true;
}

void PrivateSumRule::write(float* out, const float* base, size_t begin, size_t end) const {
    if (end > m_sum.size() || begin > end) throw std::out_of_range("private sum: range outside the model");
    if (!m_noised) throw std::logic_error("private sum: written before finish()");  // never the sum without its noise
    for (size_t i = begin; i < end; ++i) out[i] = (base ? base[i] : 0.0f) + m_sum[i];
}

}  // namespace hips::privacy
