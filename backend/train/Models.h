#pragma once
#include "TorchPch.h"

#include <QString>

namespace hips {

struct Net : torch::nn::Module {
    virtual torch::Tensor forward(torch::Tensor x) = 0;
};

// "mlp": 784-256-10 with ReLU. "cnn": LeNet-5-like (two 5x5 conv + pool, three linear).
std::shared_ptr<Net> createNet(const QString& name);

// Parses "cpu", "cuda", "cuda:N"; refuses CUDA with a clear message when this build lacks it.
torch::Device resolveDevice(const QString& device);

}  // namespace hips
