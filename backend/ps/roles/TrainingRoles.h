#pragma once
// The roles hips-trainer runs, the only ones that load LibTorch: workers, the master worker, and
// servers whose device is a GPU (runsInTrainer).
#include "RoleRunner.h"

namespace hips {

RoleTable trainingRoles();

}  // namespace hips
