#pragma once
// A worker: trains on its shard from the current global weights, pushes
// Δ = (w_local − w) / N_all to its server, pulls the next model (HiPS round, step 1 and 4).
// Party workers talk to their party server; central workers to the global server.
#include "RoleContext.h"

namespace hips {

int runWorker(RoleContext& ctx);

}  // namespace hips
