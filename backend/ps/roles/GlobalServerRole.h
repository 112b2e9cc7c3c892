#pragma once
// The global server (HiPS layer 2): holds the global model w, sums the parties' pushes
// (and the central workers' when they train), applies w ← w + ΣΔ, and answers pulls.
// It sends the master worker a snapshot every eval_every versions for evaluation.
#include "RoleContext.h"

namespace hips {

int runGlobalServer(RoleContext& ctx);

}  // namespace hips
