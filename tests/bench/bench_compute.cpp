// Worker compute throughput: the worker's training path (LocalTrainer::trainRound, the code
// a worker process runs each round: flat parameters, shard sampling, SGD with momentum)
// against a plain LibTorch loop with the same model, batch size and optimizer, one thread,
// in the same run. Prints samples/s for both and the ratio (target >= 0.95).
#include "Dataset.h"
#include "LocalTrainer.h"
#include "Models.h"

#include <QFileInfo>
#include <chrono>
#include <cstdio>

using namespace hips;
using Clock = std::chrono::steady_clock;

static double plainLoop(const TrainingSettings& s, const Dataset& data, int steps) {
    torch::manual_seed(s.seed);
    auto net = createNet(s.model, DatasetRegistry::inputShape(s.dataset));
    torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(s.learningRate).momentum(s.momentum));
    const auto start = Clock::now();
    for (int i = 0; i < steps; ++i) {
        const torch::Tensor idx = torch::randint(0, data.size(), {s.batchSize}, torch::kInt64);
        opt.zero_grad();
        torch::Tensor loss =
            torch::nn::functional::cross_entropy(net->forward(data.images.index_select(0, idx)), data.labels.index_select(0, idx));
        loss.backward();
        opt.step();
        (void)loss.item<double>();
    }
    return double(steps) * s.batchSize / std::chrono::duration<double>(Clock::now() - start).count();
}

static double workerRound(LocalTrainer& trainer) {
    const RoundStats stats = trainer.trainRound();
    return double(stats.samples) / stats.computeSeconds;
}

int main() {
    setTorchThreads(1);
    TrainingSettings s;
    const bool haveMnist = QFileInfo::exists(s.dataDir + "/train-images-idx3-ubyte.gz");
    if (!haveMnist) s.dataset = "synthetic";
    const Dataset data = loadDataset(s, Split::Train);
    std::printf("dataset %s, batch %d, one thread\n%-6s %14s %14s %7s\n", qPrintable(s.dataset), s.batchSize, "model", "plain_samp/s",
                "worker_samp/s", "ratio");
    for (const char* model : {"mlp", "cnn"}) {
        s.model = model;
        s.localIters = s.model == "cnn" ? 300 : 2000;
        LocalTrainer trainer(s, 0, 1, "cpu");
        plainLoop(s, data, 50);  // warm-up both: allocator, caches
        workerRound(trainer);
        double plain = 0, worker = 0;
        for (int rep = 0; rep < 3; ++rep) {  // best of three, interleaved
            plain = std::max(plain, plainLoop(s, data, s.localIters));
            worker = std::max(worker, workerRound(trainer));
        }
        std::printf("%-6s %14.0f %14.0f %7.2f\n", model, plain, worker, worker / plain);
        std::fflush(stdout);
    }
    return 0;
}
