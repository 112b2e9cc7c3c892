// Time per aggregation of every rule: n contributions of a 1.2-million-float model (the size of
// Draco's and the robust-rule papers' CNNs), one thread, f = ⌊(n − 3)/4⌋ Byzantine contributions
// tolerated (Bulyan's bound) for the rules that take one, and f of the n contributions sending
// −100 × their update (Draco's reverse attack). Draco's rules get what their workers would send:
// groups of r = 2f + 1 identical updates (repetition), or the cyclic code's rows. Each figure is
// the median of 3 rounds: begin, add every contribution, finish (the whole-vector work) and write.
//   bench_robust [FLOATS]   (default 1200000)
#include "AggregatorRegistry.h"
#include "DracoCodes.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace hips;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<std::vector<float>> randomVectors(int n, size_t length) {
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0, 0.01f);
    std::vector<std::vector<float>> out{size_t(n), std::vector<float>(length)};
    for (auto& v : out)
        for (float& x : v) x = normal(rng);
    return out;
}

void reverse(std::vector<float>& v) {
    for (float& x : v) x *= -100;
}

// The n pushes a rule sees, f of them reversed (the first of each repetition group stays honest).
std::vector<std::vector<float>> pushesFor(const QString& rule, int n, int f, size_t length) {
    std::vector<std::vector<float>> out = randomVectors(n, length);
    if (rule == QLatin1String("draco_repetition")) {
        const int r = 2 * f + 1;
        for (int k = 0; k < n; ++k) out[size_t(k)] = out[size_t(k - k % r)];
        for (int k = 0, liars = 0; k < n && liars < f; ++k)
            if (k % r != 0) reverse(out[size_t(k)]), ++liars;
        return out;
    }
    if (rule == QLatin1String("draco_cyclic")) {
        const DracoCyclicCode code(n, f);
        const std::vector<std::vector<float>> parts = out;
        for (int i = 0; i < n; ++i) {
            std::fill(out[size_t(i)].begin(), out[size_t(i)].end(), 0.0f);
            for (int k = 0; k < code.window(); ++k)
                for (size_t t = 0; t < length; ++t)
                    out[size_t(i)][t] += float(code.coefficient(k)) * parts[size_t(code.partition(i, k))][t];
        }
    }
    for (int k = 0; k < f; ++k) reverse(out[size_t(k * n / std::max(f, 1))]);
    return out;
}

double secondsPerRound(AggregationRule& rule, const std::vector<std::vector<float>>& inputs, std::vector<float>& out) {
    std::vector<double> times;
    for (int rep = 0; rep < 3; ++rep) {
        const auto start = Clock::now();
        rule.begin(out.size());
        for (size_t k = 0; k < inputs.size(); ++k)
            rule.add(Contribution{QStringLiteral("w%1").arg(k, 3, 10, QChar('0')), 1.0, inputs[k].data(), out.size(),
                                  std::shared_ptr<const void>(inputs[k].data(), [](const void*) {})});
        rule.finish();
        rule.write(out.data(), nullptr, 0, out.size());
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[1];
}

}  // namespace

int main(int argc, char** argv) {
    const size_t length = argc > 1 ? size_t(std::max(1000L, std::atol(argv[1]))) : 1200000;
    std::printf("%-18s %4s %4s %12s %10s\n", "rule", "n", "f", "s/round", "vs_fedavg");
    for (int n : {15, 45}) {
        const int f = (n - 3) / 4;
        std::vector<float> out(length);
        double fedavg = 0;
        double geometric = 0, dracoBest = 1e9;
        for (const QString& name : AggregatorRegistry::names()) {
            auto rule = AggregatorRegistry::create(name, [&](const QString& p) -> double {
                if (p == QLatin1String("byzantine_f") || p == QLatin1String("draco_s")) return f;
                if (p == QLatin1String("draco_r")) return 2 * f + 1;
                const ParamSpec* spec = AggregatorRegistry::find(name)->param(p);
                return spec ? spec->defaultValue : 0;
            });
            if (rule->minimumContributions() > n) continue;
            const double s = secondsPerRound(*rule, pushesFor(name, n, f, length), out);
            if (name == QLatin1String("fedavg")) fedavg = s;
            if (name == QLatin1String("geometric_median")) geometric = s;
            if (name.startsWith(QLatin1String("draco"))) dracoBest = std::min(dracoBest, s);
            std::printf("%-18s %4d %4d %12.4f %10.1f\n", qPrintable(name), n, f, s, s / fedavg);
            std::fflush(stdout);
        }
        if (geometric > 0 && dracoBest < 1e9)
            std::printf("n = %d: Draco's decoding is %.0fx faster than the geometric median (goal >= 100x)\n", n, geometric / dracoBest);
    }
    return 0;
}
