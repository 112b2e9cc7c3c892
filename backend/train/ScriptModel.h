#pragma once
// The user's own model: a TorchScript module saved from PyTorch (torch.jit.save of a scripted or
// traced net), wrapped as a Net whose parameters and buffers are the module's own tensors, so
// that FlatModel lays them out and trains them like a built-in net's.
#include "LocalTrainer.h"
#include "Models.h"

#include <torch/script.h>

namespace hips {

class ScriptNet : public Net {
public:
    // Loads `file`; throws TrainError naming the file, what is wrong and the LibTorch that read it.
    explicit ScriptNet(const QString& file);

    torch::Tensor forward(torch::Tensor x) override;
    void train(bool on = true) override;
    torch::jit::Module& module() { return m_module; }

private:
    torch::jit::Module m_module;
};

// The SHA-256 of a file's bytes, hex; throws TrainError when it cannot be read.
QString fileSha256(const QString& file);
// The model file this host's roles load: the copy its deployment put beside the agent
// (INSTALL_DIR/models/SHA256.pt), else the topology's path (runs on this machine).
QString modelFileOnThisHost(const TrainingSettings& s);

}  // namespace hips
