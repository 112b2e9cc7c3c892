#pragma once
// Settings that run but are measured to train poorly (README, "Codecs in every mode"): a note
// before the run with what to use instead, never a refusal. The CLI prints them as "note:" lines
// and the designer lists them under its validation, with Start all still enabled.
#include "Topology.h"
#include "TopologyIssue.h"

namespace hips {

TopologyIssues topologyAdvice(const Topology& t);

}  // namespace hips
