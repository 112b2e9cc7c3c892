#include "Adversary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace hips {

using T = ParamSpec::Type;

namespace {

// What an attacker does, in one entry per kind: corrupt the update it trained (or train on flipped
// labels), or collude at the server that receives the liars (the omniscient attacks).
struct AdversaryEntry {
    StrategyInfo info;
    void (*corrupt)(float* update, size_t n, float strength, uint64_t seed) = nullptr;
    bool flipsLabels = false;
    // The liars' common update from the honest updates' coordinate mean and spread, and its
    // strength; `strength0` gives it where the setting is 0 (ALIE's z_max from n and the liars).
    float (*collude)(double mean, double spread, double strength) = nullptr;
    double (*strength0)(int contributors, int liars) = nullptr;
};

const QList<AdversaryEntry>& entries() {
    static const QList<AdversaryEntry> kinds{
        {{QStringLiteral("reverse"),
          QStringLiteral("Sends −k times its update (Draco's reverse-gradient attack: k = 100)."),
          {{QStringLiteral("strength"), T::Number, 0, 1e6, 100, QStringLiteral("k")}},
          {}},
         [](float* u, size_t n, float k, uint64_t) {
             for (size_t i = 0; i < n; ++i) u[i] *= -k;
         }},
        {{QStringLiteral("constant"),
          QStringLiteral("Sends the same value in every coordinate (Draco's constant attack: −100)."),
          {{QStringLiteral("strength"), T::Number, -1e6, 1e6, -100, QStringLiteral("the value")}},
          {}},
         [](float* u, size_t n, float value, uint64_t) { std::fill(u, u + n, value); }},
        {{QStringLiteral("gaussian"),
          QStringLiteral("Sends Gaussian noise N(0, σ²) instead of its update."),
          {{QStringLiteral("strength"), T::Number, 0, 1e6, 1, QStringLiteral("σ")}},
          {}},
         [](float* u, size_t n, float sigma, uint64_t seed) {
             std::mt19937_64 rng(seed);
             std::normal_distribution<float> noise(0.0f, sigma);
             for (size_t i = 0; i < n; ++i) u[i] = noise(rng);
         }},
        {{QStringLiteral("nan"),
          QStringLiteral("Sends NaN in every coordinate, as a worker whose training broke does (an overflow, a faulty "
                         "device): its server leaves the push out of its sum, and a robust rule out of its choice."),
          {},
          {}},
         [](float* u, size_t n, float, uint64_t) { std::fill(u, u + n, std::numeric_limits<float>::quiet_NaN()); }},
        {{QStringLiteral("label_flip"),
          QStringLiteral("Trains on flipped labels (class c read as C − 1 − c) and sends that update."),
          {},
          {}},
         nullptr,
         true},
        {{QStringLiteral("alie"),
          QStringLiteral("A little is enough (Baruch et al. 2019): the liars collude and all send the honest "
                         "updates' mean − z·σ, coordinate by coordinate, inside the spread robust rules "
                         "accept. Omniscient, as in the paper: simulated at the server that receives them."),
          {{QStringLiteral("strength"), T::Number, 0, 100, 0, QStringLiteral("z; 0: the paper's z_max from the round's n and liars")}},
          {}},
         nullptr,
         false,
         [](double mean, double spread, double z) { return float(mean - z * spread); },
         alieZ},
        {{QStringLiteral("ipm"),
          QStringLiteral("Inner-product manipulation (Xie et al. 2020): the liars collude and all send −ε times "
                         "the honest updates' mean, so the aggregate's inner product with the true gradient "
                         "turns negative. Omniscient: simulated at the server that receives them."),
          {{QStringLiteral("strength"), T::Number, 0, 1e6, 0.5, QStringLiteral("ε")}},
          {}},
         nullptr,
         false,
         [](double mean, double, double epsilon) { return float(-epsilon * mean); }},
    };
    return kinds;
}

const AdversaryEntry* entryOf(const QString& kind) {
    for (const AdversaryEntry& e : entries())
        if (e.info.name == kind) return &e;
    return nullptr;
}

}  // namespace

const StrategyList& AdversaryRegistry::all() {
    static const StrategyList kinds = strategiesOf(entries());
    return kinds;
}

double AdversaryRegistry::defaultStrength(const QString& kind) {
    const StrategyInfo* info = find(kind);
    const ParamSpec* p = info ? info->param(QStringLiteral("strength")) : nullptr;
    return p ? p->defaultValue : 0;
}

void corruptUpdate(const AdversarySpec& attack, float* update, size_t n, uint64_t seed) {
    if (const AdversaryEntry* e = entryOf(attack.kind); e && e->corrupt) e->corrupt(update, n, float(attack.strength), seed);
}

bool flipsLabels(const QString& kind) {
    const AdversaryEntry* e = entryOf(kind);
    return e && e->flipsLabels;
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
    const AdversaryEntry* e = entryOf(kind);
    return e && e->collude;
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
    const AdversaryEntry* e = entryOf(attack.kind);
    if (h == 0 || !e || !e->collude) return;
    const double strength = attack.strength == 0 && e->strength0 ? e->strength0(contributors, liars) : attack.strength;
    for (size_t i = 0; i < n; ++i) {
        double sum = 0, squares = 0;
        for (const float* u : honest) sum += u[i];
        const double mean = sum / double(h);
        for (const float* u : honest) squares += (u[i] - mean) * (u[i] - mean);
        out[i] = e->collude(mean, std::sqrt(squares / double(h)), strength);
    }
}

}  // namespace hips
