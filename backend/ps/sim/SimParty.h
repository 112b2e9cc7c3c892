#pragma once
// hips simulate's party tier: a party server, or a collective party's workers, on the virtual clock.
#include "Collective.h"
#include "MetricsReporter.h"
#include "ModelBuffers.h"
#include "RoundCollector.h"
#include "SimNetwork.h"
#include "SimRounds.h"
#include "TrafficCounter.h"
#include "Vocabulary.h"

#include <QSet>
#include <memory>
#include <vector>

namespace hips::sim {

// A party server: its workers' round folded into the party's sum, which goes up its WAN. Or a
// collective party's (`collective`): its workers sum among themselves, and its lowest-ranked
// worker (`node`) pushes the sum up.
struct PartyServer {
    Node node;
    std::unique_ptr<Collective> collective;
    std::unique_ptr<Collective> weights;  // party_compression fp16: the weights' own exact sum
    QSet<QString> workers;
    std::vector<int> members;  // VirtualWorkers' indices
    LinkCost link;  // to the global server
    std::unique_ptr<RoundCollector> collector;
    ModelBufferPool pool;
    MetricsReporter metrics;
    TrafficCounter traffic;
    Deadline deadline;
    quint64 late = 0;  // pushes that came after their round closed (a quorum, round_timeout_s)

    explicit PartyServer(const Node& n) : node(n), metrics(n.id), traffic(n.party) {}
    // Its traffic record, with its late pushes and overclaims, as a deployed party server's.
    QCborMap trafficOf(qint64 round) const {
        QCborMap record = trafficRecord(traffic, round);
        record.insert(metric::kLatePushes, qint64(late));
        record.insert(metric::kOverclaims, qint64(collector ? collector->overclaims() : 0));
        return record;
    }
};

}  // namespace hips::sim
