#pragma once
// A collective party (Party::transport) in hips simulate: its workers' pushes summed by the
// deployed party's own Collective, over threads (ThreadMesh), in rank order with the weight and a
// count per slice riding along (at half precision, summed apart), as PartyCollective::sum does, so
// the sum has the deployed run's bits;
// what the sum costs on the virtual clock; and the bytes of each link inside the party.
#include "Collective.h"
#include "ModelBuffers.h"
#include "SimNetwork.h"
#include "Topology.h"

#include <memory>
#include <tuple>  // (std::tie takes partyCollectives apart)
#include <utility>
#include <vector>

namespace hips::sim {

struct CollectiveSum {
    FloatBuffer sum;
    double weight = 0;
    double seconds = 0;  // the allreduce's: the busiest rank's bytes over the LAN, a latency a step
    std::vector<std::vector<quint64>> bytes;  // [from][to] rank
};

// Party `p`'s collective, and with party_compression fp16 the one that sums the weights apart (the
// first then at half precision), as PartyCollective builds them.
std::pair<std::unique_ptr<Collective>, std::unique_ptr<Collective>> partyCollectives(const Party& p, const TrainingSettings& s);

// `updates[r]` and `weights[r]`: rank r's push (`floats` long). With `weightsApart` (a collective
// at half precision) the weights are summed by it on their own, exactly, as PartyCollective does.
// The sum stands for all the party's `members` (those that pushed, and those lost), slice by slice.
// `round` is the global round the sum is pushed for (gossip's ring turns by it, as deployed). A
// slice no member reached is `unreached` (standForEveryMember).
CollectiveSum sumCollectively(Collective& collective, Collective* weightsApart, const std::vector<const float*>& updates,
                              const std::vector<double>& weights, size_t floats, size_t members, qint64 round, const LinkCost& lan,
                              float unreached);

}  // namespace hips::sim
