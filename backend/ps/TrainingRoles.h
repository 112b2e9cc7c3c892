#pragma once
// The roles that train (workers, master worker): the only ones that load LibTorch.
#include "RoleRunner.h"

namespace hips {

RoleTable trainingRoles();

}  // namespace hips
