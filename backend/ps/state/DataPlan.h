#pragma once
// What a worker trains on: parts of the training set, each with the coefficient of its update in
// the worker's push. One part of its own (coefficient 1) unless a Draco code runs at the party
// servers: with draco_repetition, the part of its group (r workers train on the same data with the
// same seeds); with draco_cyclic, the 2s + 1 parts of its cyclic window, each weighted by the
// code's coefficient. Every process computes the same plan from the topology. Where the parties
// bring their own data, shards are cut from the party's data only, among the party's workers.
#include "Topology.h"

namespace hips {

struct DataPlan {
    int partitions = 1;  // the training set is split into this many shards
    QList<std::pair<int, double>> parts;  // shard index, coefficient in the push
    // The party's (or its host's) own data, split among the party's workers that read it; none:
    // the run's dataset, split over every party's workers.
    std::optional<DataSource> source;
    QString owner;  // who declared the source, for messages
    uint32_t stream = 0;  // sourceStream(owner) for a source; 0 for the run's dataset
};

DataPlan dataPlanOf(const Topology& topology, const Node& worker);

// The most samples any one worker's push may claim, whatever its plan: more than any data set,
// well inside a double's exact integers. A push for several workers may claim this for each.
inline constexpr double kMostSamplesAWorkerClaims = 1e15;

// The most samples a push of each of `contributors` that is a worker may claim as its weight:
// local_iters steps of batch_size on each of its plan's parts. A server refuses a push that
// claims more (a liar's count would buy it the weighted rules). Workers without a known bound
// (local_epochs on a party's own data, whose size only its hosts know) and other roles are left
// out; a party server's weight is the sum of the claims it accepted, so bounded the same.
QHash<QString, double> claimBounds(const Topology& topology, const QSet<QString>& contributors);

// The training workers each of `contributors` pushes for, where more than one: a party server's
// party's workers, a collective party's pushing worker's. A round without some contributors
// (undrawn, down, past a deadline) stands for all of them in these shares, not in their count: a
// party of 3 workers is 3 of 4 beside a party of one (RoundCollector::setShares).
QHash<QString, double> workersBehind(const Topology& topology, const QSet<QString>& contributors);

// What the sum of those `present` is multiplied by to stand for all `contributors`: the workers
// behind them all over the workers behind those present (`shares`: workersBehind's, 1 for any
// other), as a round without some contributors is rescaled; 0 when none is present.
double scaleToAll(const QHash<QString, double>& shares, const QStringList& contributors, const QSet<QString>& present);

}  // namespace hips
