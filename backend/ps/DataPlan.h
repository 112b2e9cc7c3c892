#pragma once
// What a worker trains on: parts of the training set, each with the coefficient of its update in
// the worker's push. One part of its own (coefficient 1) unless a Draco code runs at the party
// servers: with draco_repetition, the part of its group (r workers train on the same data with the
// same seeds); with draco_cyclic, the 2s + 1 parts of its cyclic window, each weighted by the
// code's coefficient. Every process computes the same plan from the topology.
#include "Topology.h"

namespace hips {

struct DataPlan {
    int partitions = 1;  // the training set is split into this many shards
    QList<std::pair<int, double>> parts;  // shard index, coefficient in the push
};

DataPlan dataPlanOf(const Topology& topology, const Node& worker);

}  // namespace hips
