#pragma once
// What a mode's traits rule out among the other training settings, as one table over the traits
// (ModePolicy): a new mode is checked by the rows its traits meet, with no line of its own, and
// every "use instead" names the modes the registry says fit.
#include "Topology.h"
#include "TopologyIssue.h"

namespace hips {

void checkModeConflicts(const TrainingSettings& s, TopologyIssues* issues);

}  // namespace hips
