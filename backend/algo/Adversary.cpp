#include "Adversary.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace hips {

using T = ParamSpec::Type;

const StrategyList& AdversaryRegistry::all() {
    static const StrategyList kinds{
        {QStringLiteral("reverse"),
         QStringLiteral("Sends −k times its update (Draco's reverse-gradient attack: k = 100)."),
         {{QStringLiteral("strength"), T::Number, 0, 1e6, 100, QStringLiteral("k")}},
         {}},
        {QStringLiteral("constant"),
         QStringLiteral("Sends the same value in every coordinate (Draco's constant attack: −100)."),
         {{QStringLiteral("strength"), T::Number, -1e6, 1e6, -100, QStringLiteral("the value")}},
         {}},
        {QStringLiteral("gaussian"),
         QStringLiteral("Sends Gaussian noise N(0, σ²) instead of its update."),
         {{QStringLiteral("strength"), T::Number, 0, 1e6, 1, QStringLiteral("σ")}},
         {}},
        {QStringLiteral("label_flip"),
         QStringLiteral("Trains on flipped labels (class c read as C − 1 − c) and sends that update."),
         {},
         {}},
        {QStringLiteral("alie"),
         QStringLiteral("A little is enough (Baruch et al. 2019): the liars collude and all send the honest "
                        "updates' mean − z·σ, coordinate by coordinate, inside the spread robust rules "
                        "accept. Omniscient, as in the paper: simulated at the server that receives them."),
         {{QStringLiteral("strength"), T::Number, 0, 100, 0, QStringLiteral("z; 0: the paper's z_max from the round's n and liars")}},
         {}},
        {QStringLiteral("ipm"),
         QStringLiteral("Inner-product manipulation (Xie et al. 2020): the liars collude and all send −ε times "
                        "the honest updates' mean, so the aggregate's inner product with the true gradient "
                        "turns negative. Omniscient: simulated at the server that receives them."),
         {{QStringLiteral("strength"), T::Number, 0, 1e6, 0.5, QStringLiteral("ε")}},
         {}},
    };
    return kinds;
}

double AdversaryRegistry::defaultStrength(const QString& kind) {
    const StrategyInfo* info = find(kind);
    const ParamSpec* p = info ? info->param(QStringLiteral("strength")) : nullptr;
    return p ? p->defaultValue : 0;
}

void corruptUpdate(const AdversarySpec& attack, float* update, size_t n, uint64_t seed) {
    const float s = float(attack.strength);
    if (attack.kind == QLatin1String("reverse")) {
        for (size_t i = 0; i < n; ++i) update[i] *= -s;
    } else if (attack.kind == QLatin1String("constant")) {
        std::fill(update, update + n, s);
    } else if (attack.kind == QLatin1String("gaussian")) {
        std::mt19937_64 rng(seed);
        std::normal_distribution<float> noise(0.0f, s);
        for (size_t i = 0; i < n; ++i) update[i] = noise(rng);
    }
}

bool drawnToAttack(int index, int workers, int count, int seed, int64_t round) {
    if (count <= 0 || index < 0 || index >= workers) return false;
    std::vector<int> order(size_t(workers), 0);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(uint64_t(seed) * 0x9E3779B97F4A7C15ull + uint64_t(round));
    for (int i = workers - 1; i > 0; --i) {  // Fisher–Yates with a fixed generator: the same draw everywhere
        std::uniform_int_distribution<int> pick(0, i);
        std::swap(order[size_t(i)], order[size_t(pick(rng))]);
    }
    return std::find(order.begin(), order.begin() + std::min(count, workers), index) != order.begin() + std::min(count, workers);
}

bool isColluding(const QString& kind) {
    return kind == QLatin1String("alie") || kind == QLatin1String("ipm");
}

// Φ⁻¹(p) for p in (0, 1), by bisection on Φ(x) = erfc(−x/√2)/2: exact to the float's precision.
static double normalQuantile(double p) {
    double low = -40, high = 40;
    for (int i = 0; i < 200; ++i) {
        const double mid = (low + high) / 2;
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? low : high) = mid;
    }
    return (low + high) / 2;
}

double alieZ(int n, int liars) {
    // The supporters a liar needs to look like the majority: s = ⌊n/2 + 1⌋ − f; then the largest z
    // with a share (n − s)/n of the honest below mean + z·σ (Baruch et al., Algorithm 3).
    const int s = n / 2 + 1 - liars;
    const double p = double(n - s) / double(n);
    return p > 0 && p < 1 ? normalQuantile(p) : 1.0;
}

void colludingUpdate(const AdversarySpec& attack, const std::vector<const float*>& honest, size_t n, int contributors, int liars,
                     float* out) {
    const size_t h = honest.size();
    if (h == 0) return;
    const bool ipm = attack.kind == QLatin1String("ipm");
    const double z = attack.strength > 0 ? attack.strength : alieZ(contributors, liars);
    for (size_t i = 0; i < n; ++i) {
        double sum = 0, squares = 0;
        for (const float* u : honest) sum += u[i];
        const double mean = sum / double(h);
        if (ipm) {
            out[i] = float(-attack.strength * mean);
            continue;
        }
        for (const float* u : honest) squares += (u[i] - mean) * (u[i] - mean);
        out[i] = float(mean - z * std::sqrt(squares / double(h)));
    }
}

}  // namespace hips
