#pragma once
// A party's server (HiPS layer 1): sums its workers' pushes each round, pushes the sum to
// the global server, pulls the new global model and serves it to its workers.
#include "RoleContext.h"

namespace hips {

int runPartyServer(RoleContext& ctx);

}  // namespace hips
