#pragma once
// The checks of a topology's strategies (TopologyReader::validate): a known mode, rules,
// partition and optimizer with only their own parameters in range, and what the rules need of
// the run (contributions enough for a robust rule, Draco's coded groups, going on through
// failures), with the checks of modes, secure aggregation, sampling, transports and launchers.
#include "Topology.h"
#include "TopologyIssue.h"

namespace hips {

void checkRules(const Topology& topology, TopologyIssues* issues);

// trimmed_mean cuts floor(trim_beta * n) values at each end: none, and it is the mean, which one
// liar moves anywhere. Why `rule` with `beta` would not trim `n` contributions of `round`, with
// the fix; empty when it would (or is another rule).
QString trimmedMeanDoesNotTrim(const QString& rule, double beta, int n, const QString& round);

}  // namespace hips
