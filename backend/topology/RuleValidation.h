#pragma once
// The checks of a topology's strategies (TopologyReader::validate): a known mode, rules,
// partition and optimizer with only their own parameters in range, and what the rules need of
// the run (contributions enough for a robust rule, Draco's coded groups, going on through
// failures), with the checks of modes, secure aggregation, sampling, transports and launchers.
#include "Topology.h"
#include "TopologyIssue.h"

namespace hips {

void checkRules(const Topology& topology, TopologyIssues* issues);

}  // namespace hips
