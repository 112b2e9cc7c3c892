#pragma once
// A party's `transport` (Collective.h): its workers sum their updates among themselves with a
// collective instead of pushing them to a party server; the lowest-ranked worker pushes the sum
// up and passes the global model back down. What that needs of a run is checked here.
#include "Topology.h"
#include "TopologyIssue.h"

namespace hips {

// What a collective party needs of the run, refused with the setting in the way and the way out:
// synchronous rounds at both tiers (fedavg, ssgd, esync, hfa), the plain sum at the party (no
// rule that needs each worker's own update, no masks, no party codec, no noise added at a party
// server), every worker in every round (no quorum, sampling or going on without one).
void checkPartyTransports(const Topology& topology, TopologyIssues* issues);

// The worker of a collective party that pushes the party's sum up: its lowest rank. (The global
// scheduler and server count it among their members in place of a party server.)
bool pushesForItsParty(const Topology& topology, const Node& node);

}  // namespace hips
