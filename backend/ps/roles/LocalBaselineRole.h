#pragma once
// Mode `local`: the standalone baseline. The master alone trains the run's model, from the same
// initial weights, on the whole training set with the same batch size, learning rate and local
// steps per round, and evaluates every eval_every rounds, reporting the metrics a distributed run
// reports (train, aggregate, eval), so every chart can show what no distribution gives.
#include "RoleContext.h"

namespace hips {

int runLocalBaseline(RoleContext& ctx);

}  // namespace hips
