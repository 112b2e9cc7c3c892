#pragma once
// Settings that run but are measured to train poorly (docs/algorithms.md, "Compression": "Codecs in the other modes"), and a data
// folder this machine lacks when every role runs here: a note before the run with what to do
// instead, never a refusal (the file is valid; this machine is what lacks the data). The CLI prints them as "note:" lines
// and the designer lists them under its validation, with Start all still enabled.
#include "Topology.h"
#include "TopologyIssue.h"

namespace hips {

TopologyIssues topologyAdvice(const Topology& t);

}  // namespace hips
