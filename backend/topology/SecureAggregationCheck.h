#pragma once
// What secure aggregation (`training.secure_aggregation`) needs of a run, refused with a message
// naming the setting in the way: sums from every party server at the global server, and nothing
// that needs one party's own update there.
#include "Topology.h"
#include "TopologyIssue.h"

namespace hips {

void checkSecureAggregation(const Topology& topology, TopologyIssues* issues);

}  // namespace hips
