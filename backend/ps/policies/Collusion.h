#pragma once
// The colluding attacks (alie, ipm: Adversary.h) need what the honest workers sent in the same
// round, which no worker has. As in the papers, the attacker is omniscient: the server that
// receives the liars' pushes simulates them, replacing each liar's contribution by the attack's
// vector computed from the round's honest ones before its rule sees any. Which workers lie in a
// round is the same draw the workers make (attackOf), so the liars' own `attacked` metrics agree.
#include "AggregationRule.h"
#include "Topology.h"

#include <memory>

namespace hips {

// The attack `worker` makes in `round`: its group's or party's always, else the run's when the
// round's draw picks it; null when it is honest. (It points into `worker` or the topology.)
const AdversarySpec* attackOf(const Topology& topology, const Node& worker, qint64 round);

// `rule`, or where the topology declares a colluding attack, `rule` behind the simulation of it
// (which keeps every contribution whole: nothing folds on arrival).
std::unique_ptr<AggregationRule> withCollusion(std::unique_ptr<AggregationRule> rule, const Topology& topology);

}  // namespace hips
