#include "VectorBackend.h"

#include "RobustRules.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hips {

std::vector<double> VectorBackend::pairwiseSquaredDistances(const std::vector<const float*>& vectors, size_t length) const {
    return hips::pairwiseSquaredDistances(vectors, length);
}

int VectorBackend::geometricMedian(const std::vector<const float*>& vectors, const std::vector<double>& weights, size_t length,
                                   const WeiszfeldOptions& options, float* out) const {
    const size_t n = vectors.size();
    std::vector<double> z(length, 0.0), next(length);
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    for (size_t k = 0; k < n; ++k)
        for (size_t i = 0; i < length; ++i) z[i] += weights[k] / total * vectors[k][i];
    std::vector<double> beta(n);
    int iterations = 0;
    while (iterations < options.maxIterations) {
        ++iterations;
        double betaSum = 0;
        for (size_t k = 0; k < n; ++k) {
            double dist = 0;
            for (size_t i = 0; i < length; ++i) {
                const double diff = vectors[k][i] - z[i];
                dist += diff * diff;
            }
            beta[k] = weights[k] / std::max(options.nu, std::sqrt(dist));
            betaSum += beta[k];
        }
        std::fill(next.begin(), next.end(), 0.0);
        for (size_t k = 0; k < n; ++k) {
            const double share = beta[k] / betaSum;
            for (size_t i = 0; i < length; ++i) next[i] += share * vectors[k][i];
        }
        double step = 0, norm = 0;
        for (size_t i = 0; i < length; ++i) {
            step += (next[i] - z[i]) * (next[i] - z[i]);
            norm += next[i] * next[i];
        }
        z.swap(next);
        if (std::sqrt(step) <= options.tolerance * std::max(std::sqrt(norm), 1e-30)) break;
    }
    for (size_t i = 0; i < length; ++i) out[i] = float(double(n) * z[i]);
    return iterations;
}

namespace {
std::shared_ptr<const VectorBackend>& installed() {
    static std::shared_ptr<const VectorBackend> backend = std::make_shared<VectorBackend>();
    return backend;
}
}  // namespace

const VectorBackend& vectorBackend() {
    return *installed();
}

void setVectorBackend(std::shared_ptr<const VectorBackend> backend) {
    installed() = backend ? std::move(backend) : std::make_shared<VectorBackend>();
}

}  // namespace hips
