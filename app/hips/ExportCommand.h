#pragma once
#include <QStringList>

namespace hips {

// hips export RUN --format torchscript|state_dict FILE: a run's trained model for PyTorch.
int exportCommand(const QStringList& arguments);

}  // namespace hips
