#pragma once
#include "Topology.h"
#include "TopologyIssue.h"

namespace hips {

// The parties' data sources and the model's input, as the topology declares them.
void checkData(const Topology& topology, TopologyIssues* issues);

}  // namespace hips
