#include "Adversary.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace hips {

using T = ParamSpec::Type;

const StrategyList& AdversaryRegistry::all() {
    static const StrategyList kinds{
        {QStringLiteral("reverse"), QStringLiteral("Sends −k times its update (Draco's reverse-gradient attack: k = 100)."),
         {{QStringLiteral("strength"), T::Number, 0, 1e6, 100, QStringLiteral("k")}}, {}},
        {QStringLiteral("constant"), QStringLiteral("Sends the same value in every coordinate (Draco's constant attack: −100)."),
         {{QStringLiteral("strength"), T::Number, -1e6, 1e6, -100, QStringLiteral("the value")}}, {}},
        {QStringLiteral("gaussian"), QStringLiteral("Sends Gaussian noise N(0, σ²) instead of its update."),
         {{QStringLiteral("strength"), T::Number, 0, 1e6, 1, QStringLiteral("σ")}}, {}},
        {QStringLiteral("label_flip"), QStringLiteral("Trains on flipped labels (class c read as C − 1 − c) and sends that update."),
         {}, {}},
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

}  // namespace hips
