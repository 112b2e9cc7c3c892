#pragma once
#include "ModelRegistry.h"
#include "TorchPch.h"

#include <QString>

namespace hips {

struct Net : torch::nn::Module {
    virtual torch::Tensor forward(torch::Tensor x) = 0;
};

// A ModelRegistry name, for inputs of the given shape (DatasetRegistry::inputShape) and classes.
std::shared_ptr<Net> createNet(const QString& name, InputShape in, int classes = 10);

// Parses "cpu", "cuda", "cuda:N"; refuses CUDA with a clear message when this build lacks it.
torch::Device resolveDevice(const QString& device);

}  // namespace hips
