// Whether robust rules pay on a GPU at the server: the same rule objects with the CPU's vector
// backend and with the GPU's (VectorBackend.h: Krum's and Bulyan's pairwise distances from one Gram
// matrix, Weiszfeld's iterations), on n contributions of a 1.2-million-float model, f = ⌊(n − 3)/4⌋
// of them reversed ×100 as in bench_robust. Each figure is the median of 5 whole rounds (begin, add,
// finish, write), the GPU's with every contribution copied to it and the distances or the result
// copied back; the two must select the same senders.
//   bench_gpu_rules [FLOATS]   (default 1200000; prints a line and exits 0 where no GPU is usable)
#include "AggregatorRegistry.h"
#include "GpuVectorBackend.h"
#include "LocalTrainer.h"
#include "VectorBackend.h"

#include <QCborMap>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace hips;
using Clock = std::chrono::steady_clock;

namespace {

struct Round {
    double seconds = 0;
    std::vector<float> out;
    QCborMap report;
};

Round medianRound(AggregationRule& rule, const std::vector<std::vector<float>>& inputs) {
    Round r;
    r.out.resize(inputs.front().size());
    std::vector<double> times;
    for (int rep = 0; rep < 5; ++rep) {
        const auto start = Clock::now();
        rule.begin(r.out.size());
        for (size_t k = 0; k < inputs.size(); ++k)
            rule.add(Contribution{QStringLiteral("w%1").arg(k, 3, 10, QChar('0')), 1.0, inputs[k].data(), r.out.size(),
                                  std::shared_ptr<const void>(inputs[k].data(), [](const void*) {})});
        rule.finish();
        rule.write(r.out.data(), nullptr, 0, r.out.size());
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    r.seconds = times[2];
    r.report = rule.report();
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    const size_t length = argc > 1 ? size_t(std::max(1000L, std::atol(argv[1]))) : 1200000;
    if (!torchHasCuda()) {
        std::printf("bench_gpu_rules: this LibTorch (%s) has no usable GPU; nothing to compare\n", HIPS_TORCH_FLAVOR);
        return 0;
    }
    setTorchThreads(1);
    const auto gpu = makeGpuVectorBackend(QStringLiteral("cuda:0"));
    std::printf("%-18s %4s %4s %10s %10s %9s %8s  %s\n", "rule", "n", "f", "cpu_s", "gpu_s", "speed-up", "same", "largest difference");
    for (int n : {15, 45}) {
        const int f = (n - 3) / 4;
        std::mt19937 rng(1);
        std::normal_distribution<float> normal(0, 0.01f);
        std::vector<std::vector<float>> inputs{size_t(n), std::vector<float>(length)};
        for (auto& v : inputs)
            for (float& x : v) x = normal(rng);
        for (int k = 0; k < f; ++k)
            for (float& x : inputs[size_t(k) * size_t(n) / size_t(f)]) x *= -100;
        for (const QString& name :
             {QStringLiteral("krum"), QStringLiteral("multi_krum"), QStringLiteral("bulyan"), QStringLiteral("geometric_median")}) {
            auto rule = AggregatorRegistry::create(name, [&](const QString& p) -> double {
                if (p == QLatin1String("byzantine_f")) return f;
                const ParamSpec* spec = AggregatorRegistry::find(name)->param(p);
                return spec ? spec->defaultValue : 0;
            });
            setVectorBackend(nullptr);
            const Round cpu = medianRound(*rule, inputs);
            setVectorBackend(gpu);
            medianRound(*rule, inputs);  // warm-up: kernels loaded, cuBLAS's handle made
            const Round onGpu = medianRound(*rule, inputs);
            float gap = 0;
            for (size_t i = 0; i < length; ++i) gap = std::max(gap, std::abs(cpu.out[i] - onGpu.out[i]));
            const bool same = cpu.report.value(QStringLiteral("rejected")) == onGpu.report.value(QStringLiteral("rejected"));
            std::printf("%-18s %4d %4d %10.4f %10.4f %8.1fx %8s  %.2g\n", qPrintable(name), n, f, cpu.seconds, onGpu.seconds,
                        cpu.seconds / onGpu.seconds, same ? "yes" : "NO", double(gap));
            std::fflush(stdout);
        }
    }
    return 0;
}
