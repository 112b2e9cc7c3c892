// Whether robust rules pay on a GPU at the server: Krum's pairwise distances as one matrix product
// and the geometric median's Weiszfeld iterations, in LibTorch on cuda:0, against the project's
// CPU rules (one thread), on n contributions of a 1.2-million-float model with f = ⌊(n − 3)/4⌋.
// The GPU figure counts what a server would pay: the pushes copied to the GPU (pinned memory) and
// the result copied back, beside the work alone. Each figure is the median of 5 rounds.
//   bench_gpu_rules [FLOATS]   (default 1200000; prints a line and exits 0 where no GPU is usable)
#include "AggregatorRegistry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace hips;
using Clock = std::chrono::steady_clock;

namespace {

template <typename Work>
double medianSeconds(Work work) {
    std::vector<double> times;
    for (int rep = 0; rep < 5; ++rep) {
        const auto start = Clock::now();
        work();
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[2];
}

double cpuRule(const QString& name, int f, const std::vector<std::vector<float>>& inputs, std::vector<float>& out) {
    auto rule = AggregatorRegistry::create(name, [&](const QString& p) -> double {
        if (p == QLatin1String("byzantine_f")) return f;
        const ParamSpec* spec = AggregatorRegistry::find(name)->param(p);
        return spec ? spec->defaultValue : 0;
    });
    return medianSeconds([&] {
        rule->begin(out.size());
        for (size_t k = 0; k < inputs.size(); ++k)
            rule->add(Contribution{QStringLiteral("w%1").arg(k, 3, 10, QChar('0')), 1.0, inputs[k].data(), out.size(),
                                   std::shared_ptr<const void>(inputs[k].data(), [](const void*) {})});
        rule->finish();
        rule->write(out.data(), nullptr, 0, out.size());
    });
}

// Krum: the contribution whose n − f − 2 nearest others are nearest in sum; ‖a − b‖² from one
// Gram matrix X·Xᵀ.
torch::Tensor krum(const torch::Tensor& x, int f) {
    const int64_t n = x.size(0);
    const torch::Tensor gram = torch::mm(x, x.t());
    const torch::Tensor norms = gram.diagonal();
    const torch::Tensor dist = (norms.unsqueeze(0) + norms.unsqueeze(1) - 2 * gram).clamp_min(0);
    // Each row's smallest n − f − 1 include itself (0): the n − f − 2 nearest others.
    const torch::Tensor scores = std::get<0>(dist.topk(n - f - 1, 1, /*largest=*/false)).sum(1);
    return x[scores.argmin().item<int64_t>()] * double(n);
}

// Weiszfeld's iterations from the mean, as the CPU rule does them (same tolerance and cap).
torch::Tensor geometricMedian(const torch::Tensor& x, double tolerance = 1e-5, int maxIterations = 100, double nu = 1e-6) {
    torch::Tensor z = x.mean(0);
    for (int i = 0; i < maxIterations; ++i) {
        const torch::Tensor beta = 1.0 / (x - z).norm(2, 1).clamp_min(nu);
        const torch::Tensor next = torch::mv(x.t(), beta / beta.sum());
        const bool done = (next - z).norm().item<double>() <= tolerance * std::max(next.norm().item<double>(), 1e-30);
        z = next;
        if (done) break;
    }
    return z * double(x.size(0));
}

}  // namespace

int main(int argc, char** argv) {
    const size_t length = argc > 1 ? size_t(std::max(1000L, std::atol(argv[1]))) : 1200000;
    if (!torch::cuda::is_available()) {
        std::printf("bench_gpu_rules: this LibTorch (%s) has no usable GPU; nothing to compare\n", HIPS_TORCH_FLAVOR);
        return 0;
    }
    torch::set_num_threads(1);
    const torch::Device gpu(torch::kCUDA, 0);
    std::printf("%-18s %4s %4s %12s %12s %12s %9s\n", "rule", "n", "f", "cpu_s", "gpu_s", "gpu_work_s", "speed-up");
    for (int n : {15, 45}) {
        const int f = (n - 3) / 4;
        std::mt19937 rng(1);
        std::normal_distribution<float> normal(0, 0.01f);
        std::vector<std::vector<float>> inputs{size_t(n), std::vector<float>(length)};
        for (auto& v : inputs)
            for (float& x : v) x = normal(rng);
        for (int k = 0; k < f; ++k)
            for (float& x : inputs[size_t(k)]) x *= -100;  // reversed, as in bench_robust
        torch::Tensor host = torch::empty({n, int64_t(length)}, torch::TensorOptions().pinned_memory(true));
        for (int k = 0; k < n; ++k) std::copy(inputs[size_t(k)].begin(), inputs[size_t(k)].end(), host[k].data_ptr<float>());
        torch::Tensor result = torch::empty({int64_t(length)}, torch::TensorOptions().pinned_memory(true));
        std::vector<float> out(length);
        for (const QString& name : {QStringLiteral("krum"), QStringLiteral("geometric_median")}) {
            auto gpuRule = [&](const torch::Tensor& x) { return name == QLatin1String("krum") ? krum(x, f) : geometricMedian(x); };
            const double cpu = cpuRule(name, f, inputs, out);
            const torch::Tensor resident = host.to(gpu);
            gpuRule(resident);  // warm-up: kernels loaded, cuBLAS handle made
            torch::cuda::synchronize();
            const double work = medianSeconds([&] {
                gpuRule(resident);
                torch::cuda::synchronize();
            });
            const double whole = medianSeconds([&] {
                result.copy_(gpuRule(host.to(gpu, /*non_blocking=*/true)));
            });
            const float gap = (result - torch::from_blob(out.data(), {int64_t(length)})).abs().max().item<float>();
            std::printf("%-18s %4d %4d %12.4f %12.4f %12.4f %8.1fx  (largest difference from the CPU's: %.2g)\n",
                        qPrintable(name), n, f, cpu, whole, work, cpu / whole, double(gap));
            std::fflush(stdout);
        }
    }
    return 0;
}
