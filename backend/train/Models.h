#pragma once
#include "ModelRegistry.h"
#include "TorchPch.h"

#include <QString>
#include <mutex>

namespace hips {

struct Net : torch::nn::Module {
    virtual torch::Tensor forward(torch::Tensor x) = 0;
};

// A ModelRegistry name, for inputs of the given shape (DatasetRegistry::inputShape) and classes.
std::shared_ptr<Net> createNet(const QString& name, InputShape in, int classes = 10);

// Where the built-in models' dropout draws its masks on the calling thread while one lives: the
// given generator instead of LibTorch's process-wide one, which the threads of a shared trainer
// (several workers in one process) would otherwise draw from in turns no run repeats.
class ThreadDropoutGenerator {
public:
    explicit ThreadDropoutGenerator(at::Generator& generator);
    ~ThreadDropoutGenerator();
    ThreadDropoutGenerator(const ThreadDropoutGenerator&) = delete;
    ThreadDropoutGenerator& operator=(const ThreadDropoutGenerator&) = delete;

private:
    at::Generator* m_previous;
};

// Held by whoever seeds or draws from LibTorch's process-wide generator (a model's initial
// weights, a shard's order, a TorchScript model's dropout): the threads of one process take turns.
std::recursive_mutex& processGeneratorLock();

// Parses "cpu", "cuda", "cuda:N"; refuses CUDA with a clear message when this build lacks it.
torch::Device resolveDevice(const QString& device);

}  // namespace hips
